"""Tracking generator A: a textured photograph (a crop of a real photo from a Debian package) as the
target, over real footage, with a scripted path (keyframes: position and scale), occluders (other
photographs: bars that slide over part of the target, panels fixed in the scene that hide it), a
distractor of the same colours (another crop of the same photograph recoloured to the target's
channel statistics) and the camera of compose.Camera (pan, hand-held shake). Exact ground truth:
the box of the target's warped coverage (full extent; occluders do not change it), and the visible
fraction per frame.

Spec keys (hardset.py): bg, tex, occ_tex, size, frames, seed, keys, base (target w, h), angle
(in-plane rotation amplitude, radians), hidden [(t0, t1)] (not drawn: out of the scene), bars
[dict(t=(t0, t1), w, h (target sizes), dx0, dx1, dy)], panels [dict(x, y, w, h) view fractions],
distractor (t0, t1) or None, camera dict for compose.Camera.
"""
import math

import cv2
import numpy as np

import compose


def recolour(src, like):
    out = np.empty_like(src, np.float32)
    for c in range(3):
        a, b = src[..., c], like[..., c]
        out[..., c] = (a - a.mean()) / max(float(a.std()), 1e-6) * b.std() + b.mean()
    return np.clip(out, 0, 255)


def photo_crop(photo, rng, tw, th, frac=0.5):
    """A tw:th crop of `frac` of the photo's shorter side at a seeded position, resized to tw x th."""
    ph, pw = photo.shape[:2]
    cw = int(frac * min(pw, ph * tw / th))
    ch = int(cw * th / tw)
    x, y = int(rng.uniform(0, pw - cw)), int(rng.uniform(0, ph - ch))
    crop = photo[y:y + ch, x:x + cw]
    # Resized to twice the base size: the target is drawn up to 3x without looking blurred.
    return cv2.resize(crop, (2 * tw, 2 * th), interpolation=cv2.INTER_AREA).astype(np.float32), (x, y)


def render(spec, footage, writer):
    rng = np.random.default_rng(spec["seed"])
    W, H = spec["size"]
    n = spec["frames"]
    bg = footage.video(spec["bg"])
    cam = compose.Camera(bg, W, H, n, rng, **spec.get("camera", {}))
    tw, th = spec["base"]
    photo = footage.image(spec["tex"]).astype(np.float32)
    tex, (cx0, cy0) = photo_crop(photo, rng, tw, th)
    # The distractor: the diagonally opposite part of the same photograph, recoloured.
    dis_src = np.ascontiguousarray(photo[::-1, ::-1])
    dis = recolour(photo_crop(dis_src, rng, tw, th)[0], tex)
    occ_photo = footage.image(spec["occ_tex"]).astype(np.float32)
    x, y, s = compose.keyframes(spec["keys"], n)
    wob = rng.uniform(0, 2 * math.pi)
    angle = spec.get("angle", 0.15) * np.sin(2 * math.pi * 1.3 * np.arange(n) / n + wob)
    panels = []
    for p in spec.get("panels", []):
        pw, ph = int(p["w"] * W), int(p["h"] * H)
        img, _ = photo_crop(occ_photo, rng, max(pw // 2, 4), max(ph // 2, 4), frac=0.8)
        panels.append((cv2.resize(img, (pw, ph)), np.ones((ph, pw), np.float32), p))
    for t in range(n):
        # The texture is twice the base size: scale 0.5 draws it at the base size.
        cx, cy = cam.to_canvas(t, x[t] * W, y[t] * H)
        hidden = any(a <= t < b for a, b in spec.get("hidden", []))
        if hidden:
            target = (tex[:1, :1], np.zeros((1, 1), np.float32), 0, 0)
        else:
            target = compose.warp_sprite(tex, cx, cy, 0.5 * s[t], angle[t])
        behind, front = [], []
        d = spec.get("distractor")
        if d and d[0] <= t < d[1] and not hidden:
            v = (t - d[0]) / float(d[1] - d[0])
            dx = (1 - 2 * v) * 2.4 * tw * s[t]
            dy = 0.5 * th * s[t] * (1 if spec["seed"] % 2 else -1)
            behind.append(compose.warp_sprite(dis, cx + dx, cy + dy, 0.5 * s[t], -angle[t]))
        for b in spec.get("bars", []):
            t0, t1 = b["t"]
            if t0 <= t < t1 and not hidden:
                v = (t - t0) / float(max(1, t1 - t0 - 1))
                bw, bh = max(2, int(b["w"] * tw * s[t])), max(2, int(b["h"] * th * s[t]))
                bx = cx + (b["dx0"] + v * (b["dx1"] - b["dx0"])) * tw * s[t] - bw / 2
                by = cy + b["dy"] * th * s[t] - bh / 2
                img = cv2.resize(occ_photo[100:300, 200:280], (bw, bh), interpolation=cv2.INTER_AREA)
                front.append((img, np.ones((bh, bw), np.float32), bx, by))
        for img, a, p in panels:
            px, py = cam.to_canvas(t, p["x"] * W, p["y"] * H)
            front.append((img, a, px, py))
        img, at_view, vis = compose.render_frame(cam, t, behind, target, front)
        writer.add(img, at_view, vis)
    return dict(texture_crop=[int(cx0), int(cy0)])
