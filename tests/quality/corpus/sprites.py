"""Moving objects for the quality corpus: anti-aliased sprites (walking people, cars, a parked
object), their cast shadows, and the paths they follow (with stops). Everything is drawn at the
target resolution from a seeded generator, so a corpus is the same bytes on every machine.

A sprite is (rgb float32 HxWx3, alpha float32 HxW in [0, 1]); a shadow is an alpha map of the
frame's size. Textures come from real images (frames of the source videos), so objects have real
colour statistics and camouflage against the background happens as it does in real footage.
"""
import math

import cv2
import numpy as np

SS = 4  # supersampling of the silhouettes (anti-aliased alpha after INTER_AREA)


def _poly(img, pts, value=1.0):
    cv2.fillPoly(img, [np.round(np.array(pts) * SS * 16).astype(np.int32)], value,
                 lineType=cv2.LINE_8, shift=4)


def _limb(img, x0, y0, length, width, angle):
    """A limb as a quadrilateral from (x0, y0), swung `angle` radians from the vertical."""
    dx, dy = math.sin(angle), math.cos(angle)
    nx, ny = dy * width / 2, -dx * width / 2
    x1, y1 = x0 + dx * length, y0 + dy * length
    _poly(img, [(x0 + nx, y0 + ny), (x0 - nx, y0 - ny), (x1 - nx, y1 - ny), (x1 + nx, y1 + ny)])
    cv2.circle(img, (int(round(x1 * SS)), int(round(y1 * SS))), max(1, int(width * SS / 2)), 1.0, -1)


def _texture(pool, rng, h, w, tint, amount):
    """A real-image patch of h x w, pulled towards the colour `tint` by `amount` (0..1)."""
    src = pool[rng.integers(len(pool))]
    sh, sw = src.shape[:2]
    ph, pw = min(sh, max(8, h // 2)), min(sw, max(8, w // 2))
    y, x = rng.integers(0, sh - ph + 1), rng.integers(0, sw - pw + 1)
    patch = cv2.resize(src[y:y + ph, x:x + pw], (w, h), interpolation=cv2.INTER_LINEAR)
    return patch * (1.0 - amount) + np.array(tint, np.float32) * amount


CLOTHES = [(30, 30, 35), (200, 200, 205), (40, 60, 130), (120, 30, 30), (60, 90, 60), (150, 120, 80),
           (90, 90, 100), (20, 20, 60), (180, 160, 60), (110, 70, 120)]
SKIN = [(224, 172, 140), (198, 134, 100), (141, 85, 60), (90, 60, 45)]
CARS = [(180, 20, 20), (20, 40, 120), (200, 200, 200), (30, 30, 30), (120, 120, 125), (240, 240, 235),
        (60, 100, 60), (160, 140, 90)]


class Person:
    """A walking person of height `h` pixels (frame scale); the pose depends on the distance walked."""

    def __init__(self, rng, pool, h):
        self.h = max(12, int(round(h)))
        self.w = max(6, int(round(self.h * 0.42)))
        self.shirt = _texture(pool, rng, self.h, self.w, CLOTHES[rng.integers(len(CLOTHES))], 0.55)
        self.legs = _texture(pool, rng, self.h, self.w, CLOTHES[rng.integers(len(CLOTHES))], 0.6)
        self.skin = np.array(SKIN[rng.integers(len(SKIN))], np.float32)
        self.hair = np.array(CLOTHES[rng.integers(2)], np.float32) * 0.7
        self.stride = 0.35 * self.h  # pixels walked per step cycle half

    def render(self, walked, facing):
        """Sprite after walking `walked` pixels; facing -1 (left) or +1 (right)."""
        h, w = self.h, self.w
        phase = math.sin(math.pi * walked / self.stride) if self.stride > 0 else 0.0
        swing = 0.38 * phase
        masks = {k: np.zeros((h * SS, w * SS), np.float32) for k in ("skin", "hair", "shirt", "legs")}
        cx = w / 2
        cv2.ellipse(masks["skin"], (int(cx * SS), int(0.10 * h * SS)),
                    (int(0.085 * h * SS), int(0.075 * h * SS)), 0, 0, 360, 1.0, -1)
        cv2.ellipse(masks["hair"], (int(cx * SS), int(0.065 * h * SS)),
                    (int(0.085 * h * SS), int(0.045 * h * SS)), 0, 180, 360, 1.0, -1)
        _poly(masks["shirt"], [(cx - 0.17 * w * 2.2 / 2, 0.18 * h), (cx + 0.17 * w * 2.2 / 2, 0.18 * h),
                               (cx + 0.16 * w * 2.2 / 2, 0.56 * h), (cx - 0.16 * w * 2.2 / 2, 0.56 * h)])
        arm_w = 0.075 * h
        _limb(masks["shirt"], cx - 0.15 * w * 2.2 / 2, 0.21 * h, 0.30 * h, arm_w, -swing * facing)
        _limb(masks["shirt"], cx + 0.15 * w * 2.2 / 2, 0.21 * h, 0.30 * h, arm_w, swing * facing)
        leg_w = 0.09 * h
        _limb(masks["legs"], cx - 0.06 * h, 0.54 * h, 0.42 * h, leg_w, swing)
        _limb(masks["legs"], cx + 0.06 * h, 0.54 * h, 0.42 * h, leg_w, -swing)
        rgb = np.zeros((h, w, 3), np.float32)
        alpha = np.zeros((h, w), np.float32)
        shade = np.linspace(1.08, 0.85, h, dtype=np.float32)[:, None, None]  # light from above
        for k in ("legs", "shirt", "skin", "hair"):  # later parts cover earlier ones
            a = cv2.resize(masks[k], (w, h), interpolation=cv2.INTER_AREA)
            col = {"skin": self.skin, "hair": self.hair}.get(k)
            layer = (np.broadcast_to(col, (h, w, 3)) if col is not None else
                     (self.shirt if k == "shirt" else self.legs)) * shade
            rgb = rgb * (1 - a[..., None]) + layer * a[..., None]
            alpha = alpha * (1 - a) + a
        if facing < 0:
            rgb, alpha = rgb[:, ::-1], alpha[:, ::-1]
        return np.clip(rgb, 0, 255), np.clip(alpha, 0, 1)


class Car:
    """A side view of a car of height `h` pixels."""

    def __init__(self, rng, pool, h):
        self.h = max(8, int(round(h)))
        self.w = int(round(self.h * 2.4))
        base = np.array(CARS[rng.integers(len(CARS))], np.float32)
        self.body = _texture(pool, rng, self.h, self.w, base, 0.8)
        self.glass = _texture(pool, rng, self.h, self.w, (40, 50, 60), 0.75)

    def render(self, walked, facing):
        h, w = self.h, self.w
        body = np.zeros((h * SS, w * SS), np.float32)
        glass = np.zeros_like(body)
        wheels = np.zeros_like(body)
        _poly(body, [(0.02 * w, 0.45 * h), (0.98 * w, 0.45 * h), (0.99 * w, 0.82 * h), (0.01 * w, 0.82 * h)])
        _poly(body, [(0.22 * w, 0.08 * h), (0.70 * w, 0.08 * h), (0.86 * w, 0.46 * h), (0.10 * w, 0.46 * h)])
        _poly(glass, [(0.26 * w, 0.15 * h), (0.67 * w, 0.15 * h), (0.79 * w, 0.42 * h), (0.17 * w, 0.42 * h)])
        for wx in (0.2, 0.8):
            cv2.circle(wheels, (int(wx * w * SS), int(0.8 * h * SS)), int(0.19 * h * SS), 1.0, -1)
        rgb = np.zeros((h, w, 3), np.float32)
        alpha = np.zeros((h, w), np.float32)
        shade = np.linspace(1.15, 0.8, h, dtype=np.float32)[:, None, None]
        for m, layer in ((body, self.body * shade), (glass, self.glass),
                         (wheels, np.full((h, w, 3), 25.0, np.float32))):
            a = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)
            rgb = rgb * (1 - a[..., None]) + layer * a[..., None]
            alpha = alpha * (1 - a) + a
        if facing < 0:
            rgb, alpha = rgb[:, ::-1], alpha[:, ::-1]
        return np.clip(rgb, 0, 255), np.clip(alpha, 0, 1)


class Mover:
    """An object moving along a polyline of ground points (feet / wheel contact, frame pixels) at
    `speed` pixels per frame, entering at frame `start`. `stops`: (waypoint index, frames) pairs:
    the object waits that long on reaching that waypoint. `height_at(y)`: object height at ground
    row y (perspective). Before `start` and after the end it is absent, unless `hold_start` (it
    stands at the first waypoint from frame 0: a parked object that later leaves)."""

    def __init__(self, kind, points, speed, start, stops=(), hold_start=False):
        self.kind, self.points, self.speed, self.start = kind, points, speed, start
        self.stops = dict(stops)
        self.hold_start = hold_start
        self.sprite = None  # set by the scene (needs the size at the first point)

    def state(self, t):
        """(x, y, walked, facing, moving) at frame t, or None when absent."""
        if t < self.start:
            if not self.hold_start:
                return None
            x, y = self.points[0]
            return x, y, 0.0, self._facing(0), False
        budget = (t - self.start) * self.speed
        walked = 0.0
        for i in range(len(self.points) - 1):
            if i in self.stops:
                wait = self.stops[i] * self.speed
                if budget < wait:
                    x, y = self.points[i]
                    return x, y, walked, self._facing(i), False
                budget -= wait
            (x0, y0), (x1, y1) = self.points[i], self.points[i + 1]
            seg = math.hypot(x1 - x0, y1 - y0)
            if budget <= seg:
                f = budget / seg if seg else 0.0
                return x0 + f * (x1 - x0), y0 + f * (y1 - y0), walked + budget, self._facing(i), True
            budget -= seg
            walked += seg
        return None

    def _facing(self, i):
        i = min(i, len(self.points) - 2)
        return 1 if self.points[i + 1][0] >= self.points[i][0] else -1


def shadow_map(alpha, x0, y0, frame_h, frame_w, shear, squash, blur):
    """The cast shadow of a sprite whose alpha is placed with its top-left at (x0, y0): the
    silhouette flipped about the ground line (the sprite's bottom row), squashed by `squash`,
    sheared by `shear` (x offset per row away from the feet), blurred by `blur` pixels (penumbra)."""
    h, w = alpha.shape
    sh = max(2, int(round(h * squash)))
    flat = cv2.resize(alpha[::-1], (w, sh), interpolation=cv2.INTER_AREA)
    pad = int(abs(shear) * sh) + 2
    out = np.zeros((sh, w + 2 * pad), np.float32)
    for r in range(sh):  # row r is r+1 rows below the ground line
        off = pad + int(round(shear * r))
        out[r, off:off + w] = flat[r]
    if blur > 0:
        k = 2 * int(blur) + 1
        out = cv2.GaussianBlur(out, (k, k), blur / 2)
    full = np.zeros((frame_h, frame_w), np.float32)
    gy, gx = int(round(y0 + h)) - 1, int(round(x0)) - pad
    ys, xs = max(0, gy), max(0, gx)
    ye, xe = min(frame_h, gy + sh), min(frame_w, gx + out.shape[1])
    if ye > ys and xe > xs:
        full[ys:ye, xs:xe] = out[ys - gy:ye - gy, xs - gx:xe - gx]
    return full


def paste(canvas, alpha_acc, rgb, alpha, x0, y0):
    """Alpha-blends the sprite into canvas (HxWx3 float32) at integer (x0, y0); alpha_acc (HxW)
    accumulates coverage."""
    H, W = alpha_acc.shape
    h, w = alpha.shape
    x0, y0 = int(round(x0)), int(round(y0))
    ys, xs = max(0, y0), max(0, x0)
    ye, xe = min(H, y0 + h), min(W, x0 + w)
    if ye <= ys or xe <= xs:
        return
    a = alpha[ys - y0:ye - y0, xs - x0:xe - x0]
    canvas[ys:ye, xs:xe] = canvas[ys:ye, xs:xe] * (1 - a[..., None]) + \
        rgb[ys - y0:ye - y0, xs - x0:xe - x0] * a[..., None]
    alpha_acc[ys:ye, xs:xe] = alpha_acc[ys:ye, xs:xe] * (1 - a) + a
