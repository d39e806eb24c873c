#!/usr/bin/python3
"""The street-chain set of docs/evaluation.md: walking people (articulated, textured sprites of
tests/quality/corpus/sprites.py) composited onto real static-camera footage from Debian packages,
with per-frame person boxes and identities. People cross each other at the same depth (mutual
occlusion), walk in a group of two, stop for several seconds, walk slowly, run, and approach the
camera (perspective: their size follows the ground plane). Sizes: 640x360 and 1920x1080.

The footage's own moving people (vtest.avi's pedestrians, the arm of the ball clip) are not
annotated: their regions (motion against the clip's median, dilated, as boxes) are written as
"unknown" so that a box on them counts neither as a person nor as background.

Per sequence, OUT/<name>/: video.mp4 (H.264, x264 constant QP, no B-frames), truth.json (per frame:
people [{id, x, y, w, h, visible}], unknown [[x, y, w, h]...]), meta.json.

Usage: /usr/bin/python3 tests/streeteval/make_street.py [--out DIR] [--split dev|eval|all] [--only a,b]
Default DIR build-eval/street (ignored by git).
"""
import argparse
import json
import os
import sys
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "quality", "corpus"))
sys.path.insert(0, os.path.join(HERE, "..", "footage"))
import footage  # noqa: E402
import make_corpus  # noqa: E402
import sprites  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def people(rng, x_range, y_range, n_frames, speed=3.0):
    """Movers in source pixels: a crossing pair at one depth (they occlude each other), a group of
    two side by side, a person who stops, a slow walker, a runner, one approaching the camera."""
    x0, x1 = x_range
    ya, yb = y_range
    out = []
    y = rng.uniform(ya + 0.3 * (yb - ya), yb - 0.2 * (yb - ya))
    t = int(rng.integers(5, 30))
    out.append(dict(role="cross-a", points=[(x0 - 30, y), (x1 + 30, y + 6)], speed=speed, start=t))
    out.append(dict(role="cross-b", points=[(x1 + 30, y + 4), (x0 - 30, y - 2)], speed=speed * 1.1, start=t + 8))
    y = rng.uniform(ya, yb)
    t = int(rng.integers(10, n_frames // 3))
    left = rng.uniform() < 0.5
    xs = (x0 - 30, x1 + 30) if left else (x1 + 30, x0 - 30)
    out.append(dict(role="group-a", points=[(xs[0], y), (xs[1], y)], speed=speed * 0.8, start=t))
    out.append(dict(role="group-b", points=[(xs[0], y + 14), (xs[1], y + 14)], speed=speed * 0.8, start=t + 4))
    y = rng.uniform(ya + 0.2 * (yb - ya), yb)
    xm = rng.uniform(x0 + 0.3 * (x1 - x0), x0 + 0.7 * (x1 - x0))
    out.append(dict(role="stopper", points=[(x0 - 30, y), (xm, y + 5), (x1 + 30, y + 10)], speed=speed,
                    start=int(rng.integers(0, 20)), stops=[(1, int(rng.integers(40, 70)))]))
    y = rng.uniform(ya, yb)
    out.append(dict(role="slow", points=[(x1 + 30, y), (x0 - 30, y)], speed=speed * 0.35,
                    start=int(rng.integers(0, 20))))
    y = rng.uniform(ya, yb)
    out.append(dict(role="runner", points=[(x0 - 30, y), (x1 + 30, y)], speed=speed * 2.5,
                    start=int(rng.integers(n_frames // 3, n_frames // 2))))
    xs = rng.uniform(x0 + 0.2 * (x1 - x0), x0 + 0.8 * (x1 - x0))
    out.append(dict(role="approach", points=[(xs, ya), (xs + rng.uniform(-80, 80), yb + 40)], speed=speed * 0.7,
                    start=int(rng.integers(0, n_frames // 3))))
    return out


SPECS = [
    # name, split, footage, source crop (16:9), output size, frames, first source frame, mirror,
    # perspective (k, horizon row) in source pixels, walkable rows, seed
    dict(name="dev-vtest-360", split="dev", src="vtest", crop=(0, 144, 768, 432), size=(640, 360), frames=200,
         t0=0, mirror=False, persp=(0.42, 100.0), rows=(250, 470), seed=31, speed=3.0),
    dict(name="dev-vtest-1080", split="dev", src="vtest", crop=(0, 144, 768, 432), size=(1920, 1080), frames=100,
         t0=200, mirror=False, persp=(0.42, 100.0), rows=(250, 470), seed=32, speed=3.0),
    dict(name="dev-lego-360", split="dev", src="lego", crop=(0, 5, 560, 315), size=(640, 360), frames=160,
         t0=0, mirror=False, persp=(0.5, 40.0), rows=(180, 290), seed=33, speed=2.5),
    dict(name="eval-vtest-360", split="eval", src="vtest", crop=(0, 144, 768, 432), size=(640, 360), frames=200,
         t0=420, mirror=True, persp=(0.42, 100.0), rows=(250, 470), seed=41, speed=3.0),
    dict(name="eval-vtest-1080", split="eval", src="vtest", crop=(0, 144, 768, 432), size=(1920, 1080), frames=100,
         t0=650, mirror=True, persp=(0.42, 100.0), rows=(250, 470), seed=42, speed=3.0),
    dict(name="eval-ball-360", split="eval", src="ball", crop=(0, 100, 720, 405), size=(640, 360), frames=200,
         t0=0, mirror=False, persp=(0.55, 60.0), rows=(260, 470), seed=43, speed=3.0),
]


def render(spec, out, pool):
    rng = np.random.default_rng(spec["seed"])
    W, H = spec["size"]
    n = spec["frames"]
    cx, cy, cw, ch = spec["crop"]
    s = W / float(cw)
    clip = footage.video(spec["src"])
    plate = np.median(np.array(clip[::5]), axis=0).astype(np.float32)
    k, yh = spec["persp"]
    movers = []
    for i, m in enumerate(people(rng, (cx, cx + cw), spec["rows"], n, spec["speed"])):
        mv = sprites.Mover("person", m["points"], m["speed"], m["start"], m.get("stops", ()))
        hmax = k * (max(p[1] for p in m["points"]) - yh) * s
        mv.sprite = sprites.Person(rng, pool, hmax)
        mv.id, mv.role = i, m["role"]
        movers.append(mv)
    d = os.path.join(out, spec["name"])
    os.makedirs(d, exist_ok=True)
    truth = []
    kern = np.ones((9, 9), np.uint8)
    with tempfile.NamedTemporaryFile(suffix=".i420", dir=d, delete=False) as raw:
        for t in range(n):
            i = min(spec["t0"] + t, len(clip) - 1)
            src = clip[i].astype(np.float32)
            moving = cv2.dilate((cv2.blur(np.abs(src - plate).max(axis=2), (5, 5)) > 22).astype(np.uint8), kern)
            view = cv2.resize(src[cy:cy + ch, cx:cx + cw], (W, H), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
            mv_view = cv2.resize(moving[cy:cy + ch, cx:cx + cw], (W, H), interpolation=cv2.INTER_NEAREST)
            if spec["mirror"]:
                view, mv_view = view[:, ::-1].copy(), mv_view[:, ::-1].copy()
            placed = []
            for mv in movers:
                st = mv.state(t)
                if st is None:
                    continue
                x, y, walked, facing, _ = st
                X, Y = (x - cx) * s, (y - cy) * s
                if spec["mirror"]:
                    X, facing = W - X, -facing
                rgb, alpha = mv.sprite.render(walked * s, facing)
                hc = k * (y - yh) * s
                if abs(hc - rgb.shape[0]) > 0.03 * rgb.shape[0]:
                    f = hc / rgb.shape[0]
                    size = (max(2, int(round(rgb.shape[1] * f))), max(2, int(round(rgb.shape[0] * f))))
                    rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
                    alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
                placed.append((Y, mv.id, rgb, alpha, X - rgb.shape[1] / 2.0, Y - rgb.shape[0]))
            canvas = view.copy()
            covers = {}
            for Y, pid, rgb, alpha, x0, y0 in sorted(placed, key=lambda p: p[0]):  # far to near
                a = np.zeros((H, W), np.float32)
                sprites.paste(canvas, a, rgb, alpha, x0, y0)
                for q in covers:  # what this person hides of the ones behind
                    covers[q][1] *= (1 - a)
                covers[pid] = [a, a.copy()]
            frame_people = []
            for pid, (full, seen) in covers.items():
                ys, xs = np.nonzero(full >= 0.5)
                if len(xs) == 0:
                    continue
                frame_people.append(dict(id=pid, x=int(xs.min()), y=int(ys.min()), w=int(xs.max() - xs.min() + 1),
                                         h=int(ys.max() - ys.min() + 1),
                                         visible=round(float(seen.sum()) / max(float(full.sum()), 1e-6), 3)))
            nlab, _, stats, _ = cv2.connectedComponentsWithStats(mv_view.astype(np.uint8))
            unknown = [[int(v) for v in stats[j, :4]] for j in range(1, nlab) if stats[j, 4] >= 0.0003 * W * H]
            truth.append(dict(people=sorted(frame_people, key=lambda p: p["id"]), unknown=unknown))
            img = np.clip(np.rint(canvas + rng.normal(0, 1.5, canvas.shape)), 0, 255).astype(np.uint8)
            raw.write(cv2.cvtColor(img, cv2.COLOR_RGB2YUV_I420).tobytes())
    enc = dict(size=(W, H), fps=10, qp=23 if W < 1000 else 25, frames_total=n)
    decoded = os.path.join(d, "decoded.i420")
    try:
        make_corpus.encode(raw.name, enc, os.path.join(d, "video.mp4"), decoded)
    finally:
        os.unlink(raw.name)
        if os.path.exists(decoded):
            os.unlink(decoded)
    json.dump(truth, open(os.path.join(d, "truth.json"), "w"))
    meta = dict(spec, width=W, height=H, sources={spec["src"]: footage.package(spec["src"])},
                people=[dict(id=mv.id, role=mv.role) for mv in movers])
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "build-eval", "street"))
    ap.add_argument("--split", default="all", choices=["dev", "eval", "all"])
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    pool = []
    for name in ("box", "cup"):
        for f in footage.video(name)[20:220:40]:
            sc = 320.0 / f.shape[1]
            pool.append(cv2.resize(f, None, fx=sc, fy=sc, interpolation=cv2.INTER_AREA).astype(np.float32))
    for spec in SPECS:
        if (only and spec["name"] not in only) or a.split not in ("all", spec["split"]):
            continue
        if os.path.isfile(os.path.join(a.out, spec["name"], "meta.json")):
            continue
        m = render(spec, a.out, pool)
        print("%-16s %-4s %dx%d %d frames, %d people" % (m["name"], m["split"], m["width"], m["height"],
                                                         m["frames"], len(m["people"])), flush=True)


if __name__ == "__main__":
    main()
