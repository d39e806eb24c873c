"""Rendering of the second action generator: the projected 3-D skeleton of body.py drawn as tapered
polygons (painter's order by depth) at 4x supersampling, clothes as hulls over the limbs (a coat or
a dress flares over the thighs, baggy trousers widen the legs), textured from photographs, shaded
by depth, motion-blurred (two sub-frames per frame), over real footage or photographs with a
drifting, jittering camera; then gain, noise and Motion-JPEG coding.
"""
import math

import cv2
import numpy as np

import body

SS = 3


def _quad(img, a, b, wa, wb, value=1.0):
    """A tapered segment from a to b (image points), widths wa and wb, with round ends."""
    ax, ay = a[0] * SS, a[1] * SS
    bx, by = b[0] * SS, b[1] * SS
    dx, dy = bx - ax, by - ay
    L = math.hypot(dx, dy) or 1e-6
    nx, ny = -dy / L, dx / L
    ha, hb = wa * SS / 2, wb * SS / 2
    pts = np.array([(ax + nx * ha, ay + ny * ha), (bx + nx * hb, by + ny * hb),
                    (bx - nx * hb, by - ny * hb), (ax - nx * ha, ay - ny * ha)])
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], value, cv2.LINE_8, shift=4)
    cv2.circle(img, (int(ax), int(ay)), max(1, int(ha)), value, -1)
    cv2.circle(img, (int(bx), int(by)), max(1, int(hb)), value, -1)


def _poly(img, pts, value=1.0):
    cv2.fillPoly(img, [np.round(np.array(pts) * SS * 16).astype(np.int32)], value, cv2.LINE_8, shift=4)


class Look:
    """A subject's colours and textures for one clip: clothes patches cut from photographs."""

    def __init__(self, s, pool, rng, bg_mean, force_loose=False):
        self.clothes = s.clothes if not force_loose else ("coat" if s.clothes in ("tight", "coat") else "dress")
        r = np.random.default_rng(s.texture_seed)
        self.parts = {}
        for part in ("top", "bottom", "coat"):
            src = pool[int(r.integers(len(pool)))]
            y, x = int(r.integers(0, src.shape[0] - 64)), int(r.integers(0, src.shape[1] - 64))
            tex = cv2.resize(src[y:y + 64, x:x + 64], (256, 256), interpolation=cv2.INTER_LINEAR)
            hue = r.uniform(0, 1, 3) * 255
            tex = 0.45 * tex + 0.55 * hue
            # Contrast against the background: pulled towards the scene's mean colour.
            k = s.contrast
            self.parts[part] = (k * tex + (1 - k) * bg_mean).astype(np.float32)
        tone = r.uniform(0.3, 0.95)
        self.skin = np.array([235, 190, 160], np.float32) * tone
        self.hair = np.array([40, 30, 25], np.float32) * r.uniform(0.5, 3.0)
        self.shoes = np.full(3, r.uniform(15, 90), np.float32)


def draw_body(s, look, joints2d, scale, W, H, shift):
    """(rgb float HxWx3, alpha HxW) of the body; `shift` moves the clothes' textures with it. Drawn
    in the body's bounding box only (the masks are supersampled)."""
    xs = [p[0] for p in joints2d.values()]
    ys = [p[1] for p in joints2d.values()]
    m = 0.3 * s.height * scale
    bx0, by0 = max(0, int(min(xs) - m)), max(0, int(min(ys) - m))
    bx1, by1 = min(W, int(max(xs) + m) + 1), min(H, int(max(ys) + m) + 1)
    rgb_full = np.zeros((H, W, 3), np.float32)
    alpha_full = np.zeros((H, W), np.float32)
    if bx1 - bx0 < 2 or by1 - by0 < 2:
        return rgb_full, alpha_full
    J = {k: (p[0] - bx0, p[1] - by0, p[2]) for k, p in joints2d.items()}
    rgb, alpha = _draw_local(s, look, J, scale, bx1 - bx0, by1 - by0, (shift[0] - bx0, shift[1] - by0))
    rgb_full[by0:by1, bx0:bx1] = rgb
    alpha_full[by0:by1, bx0:bx1] = alpha
    return rgb_full, alpha_full


def _draw_local(s, look, J, scale, W, H, shift):
    layers = []  # (depth, mask, colour-or-texture)
    g = s.girth * scale
    limb = {"thigh": 0.075, "shin": 0.055, "upper": 0.05, "fore": 0.04}
    baggy = 1.7 if look.clothes == "baggy" else 1.0

    def new():
        return np.zeros((H * SS, W * SS), np.float32)

    def add(depth, mask, fill):
        layers.append((depth, mask, fill))

    for side in ("l", "r"):
        m = new()
        _quad(m, J["hip_" + side], J["knee_" + side], limb["thigh"] * g * baggy, limb["shin"] * g * baggy * 1.1)
        _quad(m, J["knee_" + side], J["ankle_" + side], limb["shin"] * g * baggy, limb["shin"] * g * baggy * 0.9)
        add(np.mean([J[k + side][2] for k in ("hip_", "knee_", "ankle_")]), m, "bottom")
        f = new()
        a = J["ankle_" + side]
        _quad(f, a, (a[0] + 0.03 * scale * (1 if J["knee_" + side][0] <= a[0] else -1), a[1] + 0.02 * scale),
              0.05 * g, 0.04 * g)
        add(J["ankle_" + side][2] + 1e-3, f, look.shoes)
    t = new()
    sl, sr, hl, hr = J["shoulder_l"], J["shoulder_r"], J["hip_l"], J["hip_r"]
    wmin = 0.2 * g
    wc = max(abs(sl[0] - sr[0]) + 0.1 * g, wmin)
    wp = max(abs(hl[0] - hr[0]) + 0.12 * g, wmin * 0.9)
    _quad(t, J["chest"], J["pelvis"], wc, wp)
    add(J["chest"][2], t, "top")
    if look.clothes in ("coat", "dress"):
        c = new()
        kl, kr = J["knee_l"], J["knee_r"]
        flare = 0.06 * g if look.clothes == "coat" else 0.12 * g
        xs = [kl[0], kr[0], hl[0], hr[0]]
        lo_y = max(kl[1], kr[1]) + (0.02 if look.clothes == "coat" else 0.06) * scale
        pts = [(J["chest"][0] - wc / 2, J["chest"][1]), (J["chest"][0] + wc / 2, J["chest"][1]),
               (max(xs) + flare, lo_y), (min(xs) - flare, lo_y)]
        _poly(c, pts)
        add(J["chest"][2] + 0.05, c, "coat")
    for side in ("l", "r"):
        m = new()
        sleeve = 1.5 if look.clothes == "coat" else 1.0
        _quad(m, J["shoulder_" + side], J["elbow_" + side], limb["upper"] * g * sleeve, limb["fore"] * g * sleeve)
        _quad(m, J["elbow_" + side], J["wrist_" + side], limb["fore"] * g * sleeve, limb["fore"] * g * 0.9)
        fill = "coat" if look.clothes == "coat" else "top"
        add(np.mean([J[k + side][2] for k in ("shoulder_", "elbow_", "wrist_")]) + 0.02, m, fill)
        hnd = new()
        w = J["wrist_" + side]
        cv2.circle(hnd, (int(w[0] * SS), int(w[1] * SS)), max(1, int(0.045 * g * SS)), 1.0, -1)
        add(w[2] + 0.03, hnd, look.skin)
    hd = new()
    h = J["head"]
    r = s.head / s.height * 1.0
    cv2.ellipse(hd, (int(h[0] * SS), int(h[1] * SS)), (max(1, int(r * scale * s.height * SS * 0.85)),
                max(1, int(r * scale * s.height * SS))), 0, 0, 360, 1.0, -1)
    add(h[2], hd, look.skin)
    hair = new()
    cv2.ellipse(hair, (int(h[0] * SS), int((h[1] - 0.3 * r * scale * s.height) * SS)),
                (max(1, int(r * scale * s.height * SS * 0.9)), max(1, int(0.75 * r * scale * s.height * SS))),
                0, 180, 360, 1.0, -1)
    add(h[2] + 1e-3, hair, look.hair)
    rgb = np.zeros((H, W, 3), np.float32)
    alpha = np.zeros((H, W), np.float32)
    zmin = min(L[0] for L in layers)
    zmax = max(L[0] for L in layers)
    for depth, m, fill in sorted(layers, key=lambda L: L[0]):
        a = cv2.resize(m, (W, H), interpolation=cv2.INTER_AREA)
        if isinstance(fill, str):
            # The texture is fixed to the body: its origin follows the body's position.
            tex = look.parts[fill]
            ox, oy = int(-shift[0]) % 128, 0
            if H + oy > tex.shape[0] or W + ox > tex.shape[1]:
                tex = cv2.resize(tex, (W + 128, H + 128))
            col = tex[oy:oy + H, ox:ox + W]
        else:
            col = np.broadcast_to(fill, (H, W, 3))
        shade = 0.75 + 0.25 * ((depth - zmin) / (zmax - zmin) if zmax > zmin else 1.0)
        rgb = rgb * (1 - a[..., None]) + col * shade * a[..., None]
        alpha = alpha * (1 - a) + a
    return rgb, alpha


def render_clip(s, action, setting, W, H, frames, fps, bg_frames, pool, seed, alphas=None):
    """Frames (RGB uint8) of subject `s` doing `action` in `setting` (1..4) over `bg_frames`.
    `alphas` (a list): the person's coverage (H x W, 0..1) of each frame is appended to it."""
    r = np.random.default_rng(seed)
    near = setting == 2
    px_h = H * (r.uniform(0.6, 0.85) if near else r.uniform(0.35, 0.6))  # body height in pixels
    scale = px_h / s.height
    locomotion = action in body.LOCOMOTION
    yaw0 = (math.pi / 2 + r.uniform(-0.35, 0.35)) if locomotion else r.uniform(-0.6, 0.6)
    direction = 1 if r.uniform() < 0.5 else -1
    ground = H * r.uniform(0.88, 0.97)
    x_mid = W * r.uniform(0.35, 0.65)
    phase0 = r.uniform(0, 2 * math.pi)
    bg_t0 = int(r.integers(len(bg_frames)))
    mirror = r.uniform() < 0.5
    gain = r.uniform(0.55, 0.85) if setting == 4 else r.uniform(0.85, 1.15)
    noise = r.uniform(2, 6) if setting == 4 else r.uniform(0.5, 3)
    zoom_amp = r.uniform(0.1, 0.25) if near else 0.0
    bg0 = bg_frames[bg_t0 % len(bg_frames)]
    look = Look(s, pool, r, bg0.reshape(-1, 3).mean(0), force_loose=(setting == 3))
    span = W * 0.42
    out = []
    for f in range(frames):
        acc_rgb = np.zeros((H, W, 3), np.float32)
        acc_a = np.zeros((H, W), np.float32)
        for sub in (0.0, 0.5):  # motion blur: two sub-frames
            t = (f + sub) / fps
            joints, fwd = body.pose(s, action, t, phase0)
            yaw = yaw0
            x = x_mid
            if locomotion:
                # Back and forth across the view, turning at the ends (as KTH's people do).
                d = fwd * scale / (2 * span)
                tri = 2 * abs(d - math.floor(d + 0.5))  # 0..1 triangle wave
                going = (d - math.floor(d)) < 0.5
                x = x_mid + direction * span * (2 * tri - 1) * (1 if going else 1)
                yaw = yaw0 if (going == (direction > 0)) else yaw0 + math.pi
            j2 = body.project(joints, yaw, scale, (x, ground))
            rgb, a = draw_body(s, look, j2, scale, W, H, (x, 0))
            acc_rgb += 0.5 * rgb * a[..., None]
            acc_a += 0.5 * a
        # Background: the footage frame, drifting and jittering, with a slow zoom when near.
        bgf = bg_frames[(bg_t0 + f) % len(bg_frames)].astype(np.float32)
        if mirror:
            bgf = bgf[:, ::-1]
        z = 1.0 + zoom_amp * (0.5 - 0.5 * math.cos(2 * math.pi * f / frames))
        jx, jy = r.normal(0, 0.6, 2)
        m = np.float32([[z, 0, (1 - z) * W / 2 + jx], [0, z, (1 - z) * H / 2 + jy]])
        bgf = cv2.warpAffine(bgf, m, (W, H), borderMode=cv2.BORDER_REFLECT)
        if alphas is not None:
            alphas.append(acc_a)
        img = bgf * (1 - acc_a[..., None]) + acc_rgb
        img = img * gain + r.normal(0, noise, img.shape)
        out.append(np.clip(np.rint(img), 0, 255).astype(np.uint8))
    return out
