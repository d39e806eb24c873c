#!/usr/bin/python3
"""Tracking sequences with exact ground truth, made from real video backgrounds and real image
textures that Debian's opencv-doc package ships (fetched with `apt-get download`, unpacked with
`dpkg-deb -x` into a cache directory; nothing is committed).

Each sequence: a background video (resized, looped, with a smooth camera pan) and a textured target
cut from a photograph, moving along a smooth path with its scale going 1 -> 2 -> 1 -> 0.5 -> 1
(0.5x-2x of its first size) and an in-plane rotation of up to +-26 degrees; a distractor of the same
colours (a different part of the same photograph, recoloured to the target's channel means and
deviations) passing close by, behind it; two partial occlusions by a textured bar sliding over it;
all at subpixel positions with bilinear resampling. The ground truth of every frame is the bounding
box of the target's pixels (its warped mask; occluders do not change it).

Output per sequence: DIR/<name>/frames.rgb (packed RGB), groundtruth.txt ("x,y,w,h" per frame),
meta.txt. Usage: make_sequences.py OUTDIR [--set eval|dev] [--cache DIR] [--frames N] [--only NAME]
Needs Debian's python3-opencv and numpy.
"""
import argparse
import glob
import math
import os
import subprocess
import sys

import cv2
import numpy as np

W, H = 640, 360
DATA = "usr/share/doc/opencv-doc/examples/data"

# name, background video, target texture image, seed (the texture is a 4:3 crop of the image at a
# position drawn from the seed). EVAL: the reported sequences. DEV: other images and seeds, for
# design decisions, so that the reported figures do not come from sequences the tracker was
# adjusted on.
EVAL = [
    ("vtest-baboon", "vtest.avi", "baboon.jpg", 1),
    ("megamind-fruits", "Megamind.avi", "fruits.jpg", 2),
    ("tree-starry", "tree.avi", "starry_night.jpg", 3),
    ("vtest-graf", "vtest.avi", "graf1.png", 4),
    ("megamind-butterfly", "Megamind_bugy.avi", "butterfly.jpg", 5),
]
DEV = [
    ("dev-vtest-aero", "vtest.avi", "aero1.jpg", 11),
    ("dev-tree-home", "tree.avi", "home.jpg", 12),
    ("dev-megamind-smarties", "Megamind.avi", "smarties.png", 13),
    ("dev-vtest-squirrel", "vtest.avi", "squirrel_cls.jpg", 14),
    ("dev-megamind-messi", "Megamind_bugy.avi", "messi5.jpg", 15),
]
SETS = {"eval": EVAL, "dev": DEV}


def fetch_opencv_doc(cache):
    """The opencv-doc data directory, downloading and unpacking the package once."""
    data = os.path.join(cache, DATA)
    if os.path.isdir(data):
        return data
    os.makedirs(cache, exist_ok=True)
    if not glob.glob(os.path.join(cache, "opencv-doc_*.deb")):
        subprocess.run(["apt-get", "download", "opencv-doc"], cwd=cache, check=True)
    deb = sorted(glob.glob(os.path.join(cache, "opencv-doc_*.deb")))[-1]
    subprocess.run(["dpkg-deb", "-x", deb, cache], check=True)
    return data


def read_video(path):
    cap = cv2.VideoCapture(path)
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    if not frames:
        sys.exit("cannot read " + path)
    return frames


def affine(cx, cy, scale, angle, tw, th):
    """Maps texture pixel coordinates to frame coordinates: centre (tw/2, th/2) -> (cx, cy)."""
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    # x' = c (x - tw/2) - s (y - th/2) + cx ; y' = s (x - tw/2) + c (y - th/2) + cy
    return np.array([[c, -s, cx - c * tw / 2 + s * th / 2],
                     [s, c, cy - s * tw / 2 - c * th / 2]], np.float64)


def paste(frame, tex, m):
    """Draws tex warped by m onto frame (bilinear); returns the warped mask (nearest)."""
    th, tw = tex.shape[:2]
    img = cv2.warpAffine(tex, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpAffine(np.full((th, tw), 255, np.uint8), m, (W, H), flags=cv2.INTER_NEAREST,
                          borderMode=cv2.BORDER_CONSTANT)
    frame[mask > 0] = img[mask > 0]
    return mask


def recolour(src, like):
    out = np.empty_like(src, np.float64)
    for c in range(3):
        a, b = src[..., c].astype(np.float64), like[..., c].astype(np.float64)
        out[..., c] = (a - a.mean()) / max(a.std(), 1e-6) * b.std() + b.mean()
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def make(name, video, image, seed, data, outdir, n):
    rng = np.random.default_rng(seed)
    bg = read_video(os.path.join(data, video))
    photo = cv2.imread(os.path.join(data, image), cv2.IMREAD_COLOR)
    ph, pw = photo.shape[:2]
    cw = int(0.45 * min(pw, ph * 4 / 3))
    ch = cw * 3 // 4
    x, y = int(rng.uniform(0, pw - cw)), int(rng.uniform(0, ph - ch))
    tex = cv2.resize(photo[y:y + ch, x:x + cw], (64, 48), interpolation=cv2.INTER_AREA)
    # The distractor: another part of the same photograph with the target's colour statistics.
    dx, dy = (x + cw // 2 + pw // 3) % (pw - cw), (y + ch // 2 + ph // 3) % (ph - ch)
    dis = recolour(cv2.resize(photo[dy:dy + ch, dx:dx + cw], (64, 48), interpolation=cv2.INTER_AREA),
                   tex)
    occ_src = cv2.imread(os.path.join(data, "building.jpg"), cv2.IMREAD_COLOR)
    ph0, ph1, cam0, cam1 = rng.uniform(0, 2 * math.pi, 4)
    wx, wy = rng.uniform(1.1, 1.6), rng.uniform(0.8, 1.3)
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    truth = []
    with open(os.path.join(d, "frames.rgb"), "wb") as out:
        for t in range(n):
            u = t / n
            # Background: looped video, resized with a margin, panned.
            b = cv2.resize(bg[t % len(bg)], (int(W * 1.25), int(H * 1.25)),
                           interpolation=cv2.INTER_LINEAR)
            ox = int(round(0.125 * W * (1 + math.sin(2 * math.pi * 0.7 * u + cam0))))
            oy = int(round(0.125 * H * (1 + math.sin(2 * math.pi * 0.5 * u + cam1))))
            frame = b[oy:oy + H, ox:ox + W].copy()
            # Target path, scale 2^sin (1 -> 2 -> 1 -> 0.5 -> 1) and rotation.
            cx = W / 2 + 0.30 * W * math.sin(2 * math.pi * wx * u + ph0) - 0.30 * W * math.sin(ph0)
            cy = H / 2 + 0.25 * H * math.sin(2 * math.pi * wy * u + ph1) - 0.25 * H * math.sin(ph1)
            scale = 2.0 ** math.sin(2 * math.pi * u)
            angle = 0.45 * math.sin(2 * math.pi * 1.5 * u)
            # Distractor: crosses the target's path between 35% and 55% of the sequence, behind it.
            if 0.33 <= u <= 0.57:
                v = (u - 0.33) / 0.24
                ddx = (1 - 2 * v) * 2.2 * 64 * scale
                ddy = 0.55 * 48 * scale * (1 if seed % 2 else -1)
                paste(frame, dis, affine(cx + ddx, cy + ddy, scale, -angle, 64, 48))
            mask = paste(frame, tex, affine(cx, cy, scale, angle, 64, 48))
            ys, xs = np.nonzero(mask)
            truth.append((int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                          int(ys.max() - ys.min() + 1)) if len(xs) else (0, 0, 0, 0))
            # Two partial occlusions: a textured bar sliding across the target's middle.
            for start in (0.2, 0.72):
                if start <= u <= start + 0.07:
                    v = (u - start) / 0.07
                    bw, bh = int(0.45 * 64 * scale), int(1.6 * 48 * scale)
                    bx = int(cx - 64 * scale + v * 2 * 64 * scale - bw / 2)
                    by = int(cy - bh / 2)
                    bar = cv2.resize(occ_src[100:100 + 200, 200:260], (max(bw, 1), max(bh, 1)))
                    x0, y0 = max(bx, 0), max(by, 0)
                    x1, y1 = min(bx + bw, W), min(by + bh, H)
                    if x1 > x0 and y1 > y0:
                        frame[y0:y1, x0:x1] = bar[y0 - by:y1 - by, x0 - bx:x1 - bx]
            out.write(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB).tobytes())
    with open(os.path.join(d, "groundtruth.txt"), "w") as f:
        for b in truth:
            f.write("%d,%d,%d,%d\n" % b)
    with open(os.path.join(d, "meta.txt"), "w") as f:
        f.write("width %d\nheight %d\nframes %d\n" % (W, H, n))
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/gst-cuda-vision/opencv-doc"))
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--only")
    ap.add_argument("--set", choices=sorted(SETS), default="eval")
    a = ap.parse_args()
    data = fetch_opencv_doc(a.cache)
    for s in SETS[a.set]:
        if a.only and s[0] != a.only:
            continue
        print(make(*s, data, a.outdir, a.frames))


if __name__ == "__main__":
    main()
