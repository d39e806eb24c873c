"""Shared parts of the tracking-set generators (gen_photo.py, gen_figure.py): the virtual camera over
a real background video, target paths from keyframes, layer compositing, the ground truth, and the
sequence writer.

Coordinates: a sequence is rendered on a canvas (the background video resized with a margin around
the view); the camera's view is a window of the canvas that moves (pan, hand-held shake). Targets
live on the canvas (they move with the scene): their path is given in view coordinates relative to
the camera's mean position, so the camera's motion adds to theirs in the image.

A sequence directory holds what rcdtrack_eval reads (meta.txt, frames.rgb, groundtruth.txt) and:
  visible.txt  per frame, the fraction of the target's pixels visible in the view (occluders and
               the frame border removed); frames under 0.1 are "absent" (not scored)
  meta.json    generator, split, sources (Debian packages), failure modes, seed
"""
import json
import math
import os

import cv2
import numpy as np


def smooth(v, sigma):
    if sigma <= 0:
        return v
    r = int(3 * sigma)
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    p = np.pad(v, r, mode="edge")
    return np.convolve(p, k, mode="valid")


def keyframes(keys, n, sigma=3.0):
    """keys: [(frame, x, y, scale), ...] (x, y in view fractions). Returns arrays x, y (fractions)
    and scale for frames 0..n-1: positions linear between keys then smoothed by a Gaussian of
    `sigma` frames, scale linear in its logarithm (a 3x change over 100 frames is exactly that)."""
    t = np.arange(n)
    kt = [k[0] for k in keys]
    x = smooth(np.interp(t, kt, [k[1] for k in keys]), sigma)
    y = smooth(np.interp(t, kt, [k[2] for k in keys]), sigma)
    s = np.exp(np.interp(t, kt, [math.log(k[3]) for k in keys]))
    return x, y, s


class Camera:
    """A view of W x H moving over a canvas made of a real video's frames (looped forwards and
    backwards). `pan`: amplitude of a slow sinusoidal pan (fraction of the margin); `shake`:
    standard deviation in view pixels of a hand-held jitter (AR(1), coefficient `shake_rho`)."""

    def __init__(self, frames, W, H, n, rng, margin=0.15, pan=0.6, shake=0.0, shake_rho=0.6,
                 mirror=False, t0=0):
        self.W, self.H, self.n = W, H, n
        self.mx, self.my = int(round(W * margin)), int(round(H * margin))
        self.CW, self.CH = W + 2 * self.mx, H + 2 * self.my
        self.frames, self.mirror, self.t0 = frames, mirror, t0
        ph = rng.uniform(0, 2 * math.pi, 2)
        u = np.arange(n) / max(1, n)
        ox = pan * self.mx * np.sin(2 * math.pi * 0.6 * u + ph[0])
        oy = pan * self.my * np.sin(2 * math.pi * 0.45 * u + ph[1])
        if shake > 0:
            jx, jy = np.zeros(n), np.zeros(n)
            for i in range(1, n):
                jx[i] = shake_rho * jx[i - 1] + math.sqrt(1 - shake_rho ** 2) * rng.normal(0, shake)
                jy[i] = shake_rho * jy[i - 1] + math.sqrt(1 - shake_rho ** 2) * rng.normal(0, shake)
            ox, oy = ox + jx, oy + jy
        self.ox = np.clip(ox, -self.mx, self.mx)
        self.oy = np.clip(oy, -self.my, self.my)
        self._last = (None, None)

    def canvas(self, t):
        m = len(self.frames)
        period = max(1, 2 * (m - 1))
        i = (self.t0 + t) % period
        i = i if i < m else period - i
        if self._last[0] != i:
            f = self.frames[i]
            # Cropped to the canvas's aspect ratio (centred) before resizing: no stretching.
            fh, fw = f.shape[:2]
            if fw * self.CH > fh * self.CW:
                cw = int(round(fh * self.CW / self.CH))
                f = f[:, (fw - cw) // 2:(fw - cw) // 2 + cw]
            else:
                ch = int(round(fw * self.CH / self.CW))
                f = f[(fh - ch) // 2:(fh - ch) // 2 + ch]
            f = cv2.resize(f, (self.CW, self.CH), interpolation=cv2.INTER_LINEAR)
            self._last = (i, f[:, ::-1] if self.mirror else f)
        return self._last[1].astype(np.float32)

    def view_origin(self, t):
        """Canvas position of the view's top-left corner at frame t."""
        return self.mx + self.ox[t], self.my + self.oy[t]

    def to_canvas(self, t, vx, vy):
        """Canvas position of a point given in view pixels relative to the camera's mean position
        (the scene point that sits at (vx, vy) when the camera is at rest)."""
        return self.mx + vx, self.my + vy

    def crop(self, canvas, t):
        x0, y0 = self.view_origin(t)
        m = np.float32([[1, 0, -x0], [0, 1, -y0]])
        return cv2.warpAffine(canvas, m, (self.W, self.H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)


def blend(canvas, rgb, alpha, x0, y0):
    """Alpha-blends a sprite (float rgb h x w x 3, alpha h x w) at integer canvas (x0, y0); returns
    the sprite's alpha on the canvas (full size, float32)."""
    H, W = canvas.shape[:2]
    h, w = alpha.shape
    x0, y0 = int(round(x0)), int(round(y0))
    out = np.zeros((H, W), np.float32)
    ys, xs, ye, xe = max(0, y0), max(0, x0), min(H, y0 + h), min(W, x0 + w)
    if ye <= ys or xe <= xs:
        return out
    a = alpha[ys - y0:ye - y0, xs - x0:xe - x0]
    canvas[ys:ye, xs:xe] = canvas[ys:ye, xs:xe] * (1 - a[..., None]) + \
        rgb[ys - y0:ye - y0, xs - x0:xe - x0] * a[..., None]
    out[ys:ye, xs:xe] = a
    return out


def warp_sprite(tex, cx, cy, scale, angle):
    """A texture (float h x w x 3) scaled and rotated about its centre, placed with its centre at
    canvas (cx, cy) to subpixel precision: (rgb, alpha, x0, y0) of a tight integer-aligned patch."""
    th, tw = tex.shape[:2]
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    hw = 0.5 * (abs(c) * tw + abs(s) * th) + 2
    hh = 0.5 * (abs(s) * tw + abs(c) * th) + 2
    x0, y0 = int(math.floor(cx - hw)), int(math.floor(cy - hh))
    pw, ph = int(math.ceil(2 * hw)) + 2, int(math.ceil(2 * hh)) + 2
    lx, ly = cx - x0, cy - y0
    m = np.array([[c, -s, lx - c * tw / 2 + s * th / 2], [s, c, ly - s * tw / 2 - c * th / 2]])
    rgb = cv2.warpAffine(tex, m, (pw, ph), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    # Coverage at 4x supersampling: an anti-aliased edge (a hard-edged paste would be easier).
    ss = 4
    m4 = m.copy()
    m4[:, 2] *= ss
    big = cv2.warpAffine(np.ones((th * ss, tw * ss), np.float32), m4, (pw * ss, ph * ss), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    alpha = cv2.resize(big, (pw, ph), interpolation=cv2.INTER_AREA)
    return rgb, alpha, x0, y0


def render_frame(cam, t, behind, target, front):
    """Composites one frame: layers `behind` the target, the target, layers in `front` of it (each
    (rgb, alpha, x0, y0) at canvas positions), and crops the view. Returns (view RGB uint8, the
    target's alpha in the view, its visible fraction)."""
    canvas = cam.canvas(t)
    for layer in behind:
        blend(canvas, *layer)
    at = blend(canvas, *target)
    occ = np.zeros_like(at)
    for layer in front:
        a = blend(canvas, *layer)
        occ = occ + a * (1 - occ)
    view = cam.crop(canvas, t)
    at_view = cam.crop(at, t)
    seen = cam.crop(at * (1 - occ), t)
    total = float(target[1].sum())
    img = np.clip(np.rint(view), 0, 255).astype(np.uint8)
    return img, at_view, (float(seen.sum()) / total if total > 0 else 0.0)


class Writer:
    """Writes a sequence directory; call add(view_rgb_uint8, target_alpha_view, visible_fraction)
    per frame, then close(meta)."""

    def __init__(self, d, W, H):
        os.makedirs(d, exist_ok=True)
        self.d, self.W, self.H = d, W, H
        self.f = open(os.path.join(d, "frames.rgb.part"), "wb")
        self.boxes, self.vis = [], []

    def add(self, img, target_alpha, visible):
        self.f.write(np.ascontiguousarray(img).tobytes())
        ys, xs = np.nonzero(target_alpha >= 0.5)
        if len(xs) and visible >= 0.1:
            self.boxes.append((int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                               int(ys.max() - ys.min() + 1)))
        else:
            self.boxes.append((0, 0, 0, 0))
        self.vis.append(float(visible))

    def close(self, meta):
        self.f.close()
        d = self.d
        with open(os.path.join(d, "groundtruth.txt"), "w") as f:
            for b in self.boxes:
                f.write("%d,%d,%d,%d\n" % b)
        with open(os.path.join(d, "visible.txt"), "w") as f:
            for v in self.vis:
                f.write("%.4f\n" % v)
        with open(os.path.join(d, "meta.txt"), "w") as f:
            f.write("width %d\nheight %d\nframes %d\n" % (self.W, self.H, len(self.boxes)))
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(os.path.join(d, "frames.rgb.part"), os.path.join(d, "frames.rgb"))
        if self.boxes[0][2] == 0:
            raise RuntimeError("%s: the target is not visible in the first frame" % d)
