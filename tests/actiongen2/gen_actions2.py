#!/usr/bin/python3
"""gen_actions2: the second KTH-like action dataset generator (docs/evaluation.md): 3-D skeletons
seen from a yaw angle, loose clothes, other proportions, drawn with OpenCV polygons and motion blur
(body.py, render.py) over real footage and photographs from Debian packages
(tests/footage/footage.py). Same layout as tests/actiongen's gen_actions, so `cvis-action train` and
`eval` read it:

    OUT/<action>/personNN_<action>_dK_uncomp.avi    (Motion-JPEG in AVI)

Settings K: 1 far camera, 2 near camera with a slow zoom, 3 loose clothes (coat or dress), 4 indoor
footage, darker and noisier; subject p gets --settings of them, from 1 + (p - 1) mod 4 on, so that
every setting occurs in a dataset of four subjects or more. Subjects are numbered from --first (so that a dataset can hold the
subjects of both generators apart). Same arguments, same pixels.

--boxes DIR also writes the person's extent in each frame (coverage above 0.05) to
DIR/<action>__personNN_<action>_dK_uncomp.boxes, one line "frame x0 y0 x1 y1" (pixels, x1 and y1
exclusive; no line where the person is outside the frame), rendering the clips again where needed
(the same pixels; existing clips are not rewritten).

Usage: /usr/bin/python3 tests/actiongen2/gen_actions2.py OUT [--subjects N] [--first F]
           [--settings K] [--frames F] [--size WxH] [--fps R] [--seed S] [--backgrounds dev|eval]
           [--boxes DIR]
"""
import argparse
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "footage"))
import body  # noqa: E402
import footage  # noqa: E402
import render  # noqa: E402

# Backgrounds: static-camera footage and photographs (two disjoint groups) and clothes textures.
BACKGROUNDS = {
    "dev": dict(outdoor=["vtest", "tree", "grass"], indoor=["office", "home"],
                clothes=["baboon", "fruits", "graf", "starry", "smarties", "butterfly"]),
    "eval": dict(outdoor=["ball", "city", "gravel", "brick"], indoor=["lego", "phone"],
                 clothes=["astronaut", "coffee", "chelsea", "rocket", "motorcycle", "hubble"]),
}


def load_backgrounds(names, W, H):
    out = []
    for n in names:
        if footage.SOURCES[n][2] == "image":
            img = footage.image(n)
            frames = [img]
        else:
            # tree.avi: the frames before a hand enters (52 on).
            frames = footage.video(n, limit=51 if n == "tree" else 200)
        # Random crops of the footage at the clip's aspect ratio, resized to the clip size.
        fh, fw = frames[0].shape[:2]
        ch = min(fh, int(fw * H / W))
        cw = int(ch * W / H)
        for k, (x0, y0) in enumerate([(0, 0), (fw - cw, fh - ch)]):
            out.append([cv2.resize(f[y0:y0 + ch, x0:x0 + cw], (W, H), interpolation=cv2.INTER_AREA)
                        for f in frames])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--subjects", type=int, default=8)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--settings", type=int, default=2)
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--size", default="160x120")
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backgrounds", default="dev", choices=sorted(BACKGROUNDS))
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--boxes", default="")
    a = ap.parse_args()
    W, H = (int(v) for v in a.size.split("x"))
    cfg = BACKGROUNDS[a.backgrounds]
    outdoor = load_backgrounds(cfg["outdoor"], W, H)
    indoor = load_backgrounds(cfg["indoor"], W, H)
    pool = [footage.image(n).astype(np.float32) for n in cfg["clothes"]]
    n = 0
    for p in range(a.first, a.first + a.subjects):
        s = body.Subject(p, a.seed)
        for ai, action in enumerate(body.ACTIONS):
            d = os.path.join(a.out, action)
            os.makedirs(d, exist_ok=True)
            # Settings rotate over the subjects, so that a few settings per subject still cover
            # all four across the dataset.
            for k in sorted(1 + (p - 1 + i) % 4 for i in range(a.settings)):
                path = os.path.join(d, "person%02d_%s_d%d_uncomp.avi" % (p, action, k))
                boxes = os.path.join(a.boxes, "%s__person%02d_%s_d%d_uncomp.boxes" % (action, p, action, k)) \
                    if a.boxes else ""
                if os.path.isfile(path) and (not boxes or os.path.isfile(boxes)):
                    continue
                seed = a.seed * 1000003 + p * 1009 + ai * 101 + k
                r = np.random.default_rng(seed)
                group = indoor if k == 4 else outdoor
                bg = group[int(r.integers(len(group)))]
                alphas = [] if boxes else None
                frames = render.render_clip(s, action, k, W, H, a.frames, a.fps, bg, pool, seed, alphas)
                if boxes:
                    os.makedirs(a.boxes, exist_ok=True)
                    with open(boxes, "w") as o:
                        for f, al in enumerate(alphas):
                            ys, xs = np.nonzero(al > 0.05)
                            if len(xs):
                                o.write("%d %d %d %d %d\n" % (f, xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
                if os.path.isfile(path):
                    continue
                tmp = path + ".part.avi"
                vw = cv2.VideoWriter(tmp, cv2.VideoWriter_fourcc(*"MJPG"), a.fps, (W, H))
                vw.set(cv2.VIDEOWRITER_PROP_QUALITY, a.quality)
                for f in frames:
                    vw.write(cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
                vw.release()
                os.replace(tmp, path)
                n += 1
    print("gen_actions2: %d clips written (%d subjects from %d x 6 actions x %d settings each, %d frames %dx%d) in %s"
          % (n, a.subjects, a.first, a.settings, a.frames, W, H, a.out))


if __name__ == "__main__":
    main()
