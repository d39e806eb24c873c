"""Procedural dynamic backgrounds for the segmentation set (make_dynamic.py): real photographs
(Debian's python3-skimage and opencv-doc) animated by seeded motion fields, so that every pixel of
the background moves the way grass, foliage or water does, and the ground truth stays exact (the
background is background, whatever it does).

  Grass(photo): the photo warped by a wind field: smooth noise advected across the frame, gusts;
                displacement grows with a per-pixel "blade height" (the photo's brightness).
  Foliage(photo, sky): clusters of leaves (ellipses cut from the photo, green-tinted) each swaying
                about its own branch point over a static backdrop.
  Water(photo): the photo seen through a rippled surface: several travelling wave trains refract it
                and their slope adds glints.
  Creep(frame): a static scene (a photo, or a static-camera clip as a frame function) seen by a
                camera that creeps (a smooth translation of up to `amp` pixels, as a tripod
                settling or a pole swaying) under light that changes slowly by a few percent.
Each is a callable: frame(t) -> float32 RGB H x W x 3.
"""
import math

import cv2
import numpy as np


def _smooth_noise(rng, H, W, cell):
    g = rng.normal(0, 1, (H // cell + 3, W // cell + 3)).astype(np.float32)
    return cv2.resize(g, (W + 3 * cell, H + 3 * cell), interpolation=cv2.INTER_CUBIC)


def fit(photo, W, H, rng, zoom=1.0):
    ph, pw = photo.shape[:2]
    ch = int(min(ph, pw * H / W) / zoom)
    cw = int(ch * W / H)
    y, x = int(rng.integers(0, ph - ch + 1)), int(rng.integers(0, pw - cw + 1))
    return cv2.resize(photo[y:y + ch, x:x + cw], (W, H), interpolation=cv2.INTER_CUBIC).astype(np.float32)


class Grass:
    def __init__(self, photo, W, H, rng, amp=2.5, speed=1.5, tint=(0.75, 1.05, 0.6)):
        self.base = fit(photo, W, H, rng, zoom=1.5) * np.array(tint, np.float32)
        self.W, self.H, self.amp, self.speed = W, H, amp, speed
        self.nx = _smooth_noise(rng, H, W, 24)
        self.ny = _smooth_noise(rng, H, W, 24)
        lum = cv2.GaussianBlur(self.base.mean(axis=2), (0, 0), 1.0)
        self.height = (lum / max(float(lum.max()), 1.0)).astype(np.float32)  # bright blades sway more
        self.gust_ph = rng.uniform(0, 2 * math.pi)
        self.gx, self.gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))

    def __call__(self, t):
        off = int(t * self.speed) % (3 * 24)
        gust = 0.6 + 0.4 * math.sin(2 * math.pi * t / 70.0 + self.gust_ph)
        fx = self.nx[off:off + self.H, off:off + self.W]
        fy = self.ny[:self.H, off:off + self.W]
        wave = np.sin(0.35 * self.gx - 0.5 * t + 3 * fy)
        dx = self.amp * gust * self.height * (0.6 * fx + 0.8 * wave)
        dy = 0.3 * self.amp * gust * self.height * fy
        return cv2.remap(self.base, self.gx + dx, self.gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


class Foliage:
    def __init__(self, photo, backdrop, W, H, rng, n_clusters=70, amp=0.06):
        self.W, self.H = W, H
        self.back = fit(backdrop, W, H, rng)
        self.leaves = []
        src = fit(photo, W, H, rng) * np.array([0.55, 1.0, 0.45], np.float32)
        for _ in range(n_clusters):
            r = int(rng.uniform(0.04, 0.1) * H)
            cx, cy = rng.uniform(0, W), rng.uniform(0, 0.85 * H)
            # The branch point the cluster swings about, above it.
            px, py = cx + rng.uniform(-0.5, 0.5) * r, cy - rng.uniform(1.0, 3.0) * r
            mask = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
            for _ in range(6):
                ex, ey = rng.uniform(0.3, 1.7) * r, rng.uniform(0.3, 1.7) * r
                cv2.ellipse(mask, (int(ex), int(ey)), (int(rng.uniform(0.25, 0.6) * r), int(rng.uniform(0.15, 0.4) * r)),
                            rng.uniform(0, 180), 0, 360, 1.0, -1)
            mask = cv2.GaussianBlur(mask, (3, 3), 0.7)
            y0, x0 = int(np.clip(cy - r, 0, H - 2 * r - 1)), int(np.clip(cx - r, 0, W - 2 * r - 1))
            tex = src[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1] * rng.uniform(0.6, 1.2)
            self.leaves.append(dict(mask=mask, tex=tex, c=(cx, cy), p=(px, py),
                                    f=rng.uniform(0.04, 0.12), ph=rng.uniform(0, 2 * math.pi),
                                    amp=amp * rng.uniform(0.5, 1.5)))

    def __call__(self, t):
        img = self.back.copy()
        for L in self.leaves:
            a = L["amp"] * (math.sin(2 * math.pi * L["f"] * t + L["ph"]) + 0.3 * math.sin(2 * math.pi * 2.7 * L["f"] * t))
            (cx, cy), (px, py) = L["c"], L["p"]
            # Rotation by `a` about the branch point, applied to the cluster's centre and its patch.
            nx = px + math.cos(a) * (cx - px) - math.sin(a) * (cy - py)
            ny = py + math.sin(a) * (cx - px) + math.cos(a) * (cy - py)
            r = L["mask"].shape[0] // 2
            m = cv2.getRotationMatrix2D((r, r), -math.degrees(a), 1.0)
            m[0, 2] += nx - r
            m[1, 2] += ny - r
            al = cv2.warpAffine(L["mask"], m, (self.W, self.H), flags=cv2.INTER_LINEAR)
            tx = cv2.warpAffine(L["tex"], m, (self.W, self.H), flags=cv2.INTER_LINEAR)
            img = img * (1 - al[..., None]) + tx * al[..., None]
        return img


class Water:
    def __init__(self, photo, W, H, rng, amp=2.0, trains=5, tint=(0.55, 0.8, 1.0)):
        self.base = fit(photo, W, H, rng, zoom=1.3) * np.array(tint, np.float32)
        self.W, self.H, self.amp = W, H, amp
        self.gx, self.gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        self.waves = []
        for _ in range(trains):
            th = rng.uniform(0, 2 * math.pi)
            lam = rng.uniform(12, 45)
            k = 2 * math.pi / lam
            self.waves.append((k * math.cos(th), k * math.sin(th), math.sqrt(9.81 * k) * 0.9,
                               rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.0)))

    def __call__(self, t):
        hx = np.zeros((self.H, self.W), np.float32)
        hy = np.zeros_like(hx)
        for kx, ky, w, ph, a in self.waves:
            arg = kx * self.gx + ky * self.gy - w * t + ph
            c = a * np.cos(arg)
            hx += c * kx
            hy += c * ky
        n = math.sqrt(sum(kx * kx + ky * ky for kx, ky, *_ in self.waves) / len(self.waves))
        dx, dy = self.amp * hx / n, self.amp * hy / n
        img = cv2.remap(self.base, self.gx + dx, self.gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        glint = np.clip(hx / n - 0.9, 0, None) ** 2 * 120
        return img + glint[..., None]


class Creep:
    def __init__(self, frame, W, H, rng, amp=1.5, light=0.03):
        self.frame, self.W, self.H = frame, W, H
        self.gx, self.gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        # Two slow sinusoids per axis (periods 60-200 frames) scaled to peak at amp.
        self.terms = [[(rng.uniform(0.5, 1.0), 2 * math.pi / rng.uniform(60, 200), rng.uniform(0, 2 * math.pi))
                       for _ in range(2)] for _ in range(2)]
        self.norm = [sum(a for a, _, _ in axis) for axis in self.terms]
        self.amp, self.light = amp, light
        self.light_w, self.light_ph = 2 * math.pi / rng.uniform(80, 160), rng.uniform(0, 2 * math.pi)

    def offset(self, t):
        return [self.amp * sum(a * math.sin(w * t + ph) for a, w, ph in axis) / n
                for axis, n in zip(self.terms, self.norm)]

    def __call__(self, t):
        dx, dy = self.offset(t)
        img = cv2.remap(self.frame(t), self.gx + dx, self.gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return img * (1.0 + self.light * math.sin(self.light_w * t + self.light_ph))
