"""Tracking generator B: rendered articulated figures (walking people with swinging limbs, cars: the
anti-aliased sprites of tests/quality/corpus/sprites.py, clothes textured from real photographs)
over real footage. The target walks or drives along keyframes that set its feet position and its
height (perspective: approaching or leaving the camera changes its size), stops where two keys hold
the same position; other figures (of the same kind, clothes of the same colour family) cross behind
or in front of it. Ground truth: the box of the target's coverage (full extent), visible fraction.

Spec keys (hardset.py): bg, pool (photo names for the clothes), size, frames, seed, kind
(person|car), keys [(t, x, y, height)] (feet point in view fractions, height in view heights),
others [dict(kind, keys, front)], camera dict for compose.Camera.
"""
import os
import sys

import cv2
import numpy as np

import compose

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quality", "corpus"))
import sprites  # noqa: E402


class Figure:
    def __init__(self, kind, keys, n, W, H, rng, pool):
        self.x, self.y, self.h = compose.keyframes(keys, n, sigma=2.0)
        self.x, self.y, self.h = self.x * W, self.y * H, self.h * H
        hmax = float(self.h.max())
        self.sprite = (sprites.Person if kind == "person" else sprites.Car)(rng, pool, hmax)
        self.hmax = self.sprite.h
        # Distance walked in the sprite's own pixels (the gait's phase) and the facing direction.
        dx = np.diff(self.x, prepend=self.x[0])
        dy = np.diff(self.y, prepend=self.y[0])
        self.walked = np.cumsum(np.hypot(dx, dy) * self.hmax / np.maximum(self.h, 1.0))
        # Facing where it first moves (its first frame too: the first model a tracker takes).
        moving = [d for d in dx if abs(d) > 0.05]
        face, self.facing = (1 if not moving or moving[0] > 0 else -1), []
        for d in dx:
            if abs(d) > 0.05:
                face = 1 if d > 0 else -1
            self.facing.append(face)

    def layer(self, cam, t):
        rgb, alpha = self.sprite.render(float(self.walked[t]), self.facing[t])
        hh = max(4, int(round(self.h[t] * self.hmax / max(self.h.max(), 1.0))))
        ww = max(2, int(round(rgb.shape[1] * hh / float(rgb.shape[0]))))
        rgb = cv2.resize(rgb, (ww, hh), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (ww, hh), interpolation=cv2.INTER_AREA)
        cx, cy = cam.to_canvas(t, self.x[t], self.y[t])
        return rgb, alpha, cx - ww / 2.0, cy - hh


def render(spec, footage, writer):
    rng = np.random.default_rng(spec["seed"])
    W, H = spec["size"]
    n = spec["frames"]
    cam = compose.Camera(footage.video(spec["bg"]), W, H, n, rng, **spec.get("camera", {}))
    pool = []
    for name in spec["pool"]:
        p = footage.image(name)
        s = 320.0 / p.shape[1]
        pool.append(cv2.resize(p, None, fx=s, fy=s, interpolation=cv2.INTER_AREA).astype(np.float32))
    clothes_seed = int(rng.integers(1 << 30))
    target = Figure(spec["kind"], spec["keys"], n, W, H, np.random.default_rng(clothes_seed), pool)
    others = []
    for o in spec.get("others", []):
        # A look-alike (same clothes seed, so the same colours and textures) or another figure.
        cs = clothes_seed if o.get("lookalike") else int(rng.integers(1 << 30))
        others.append((Figure(o["kind"], o["keys"], n, W, H, np.random.default_rng(cs), pool),
                       o.get("front", False), o.get("t", (0, n))))
    for t in range(n):
        behind, front = [], []
        for fig, in_front, (t0, t1) in others:
            if t0 <= t < t1:
                (front if in_front else behind).append(fig.layer(cam, t))
        img, at_view, vis = compose.render_frame(cam, t, behind, target.layer(cam, t), front)
        writer.add(img, at_view, vis)
    return {}
