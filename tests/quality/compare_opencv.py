#!/usr/bin/python3
"""OpenCV's MOG2 and KNN background subtractors on the sequences that bgsub_quality dumped, against
the same ground truth and frames, with the F-measure computed exactly as bgsub_quality computes it
(pixel level, frames from the first object's appearance on).

Usage: /usr/bin/python3 tests/quality/compare_opencv.py DUMP_DIR [--quick]

Rows per sequence: ours (the masks bgsub_quality wrote), MOG2 and KNN with OpenCV's defaults, and
each "tuned": the best F over a grid of their main parameters, with and without a 3x3 median on
their masks (our model applies one by default). The grid is searched on the evaluated sequence
itself, i.e. an oracle tuning that favours OpenCV. Shadow pixels (127) count as background.
Needs Debian's python3-opencv (cv2) and numpy; not part of CI.
"""
import itertools
import os
import sys

import cv2
import numpy as np


def load(d):
    meta = dict(line.split() for line in open(os.path.join(d, "meta.txt")))
    w, h, n, ev = (int(meta[k]) for k in ("width", "height", "frames", "eval_from"))
    frames = np.fromfile(os.path.join(d, "frames.rgb"), np.uint8).reshape(n, h, w, 3)
    truth = np.fromfile(os.path.join(d, "truth.u8"), np.uint8).reshape(n, h, w) > 0
    ours = np.fromfile(os.path.join(d, "ours.u8"), np.uint8).reshape(n, h, w) > 0
    return frames, truth, ours, ev


def fmeasure(masks, truth, ev):
    m, t = masks[ev:], truth[ev:]
    tp = np.count_nonzero(m & t)
    fp = np.count_nonzero(m & ~t)
    fn = np.count_nonzero(~m & t)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def run(sub, frames, median):
    out = []
    for f in frames:
        m = sub.apply(cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
        m = np.where(m == 255, 255, 0).astype(np.uint8)  # shadows (127) are background
        if median:
            m = cv2.medianBlur(m, 3)
        out.append(m > 0)
    return np.array(out)


def best(make, grid, frames, truth, ev):
    top = (-1.0, 0, 0, None)
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid.keys(), values))
        median = params.pop("median")
        f, p, r = fmeasure(run(make(**params), frames, median), truth, ev)
        if f > top[0]:
            top = (f, p, r, dict(params, median=median))
    return top


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root, quick = sys.argv[1], "--quick" in sys.argv
    hist = [200, 500] if quick else [100, 200, 500]
    mog2_grid = {"history": hist, "varThreshold": [16, 36, 64] if quick else [8, 16, 25, 36, 50, 64, 100],
                 "detectShadows": [False, True], "median": [False, True]}
    knn_grid = {"history": hist, "dist2Threshold": [400, 800, 1600] if quick else [100, 200, 400, 800, 1600, 3200],
                "detectShadows": [False, True], "median": [False, True]}
    print("%-13s %-18s %7s %7s %7s  %s" % ("sequence", "method", "F", "P", "R", "parameters"))
    rows = []
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.isfile(os.path.join(d, "meta.txt")):
            continue
        frames, truth, ours, ev = load(d)
        res = [("ours (cudabgsub)", fmeasure(ours, truth, ev), "")]
        res.append(("MOG2 default", fmeasure(run(cv2.createBackgroundSubtractorMOG2(), frames, False), truth, ev), ""))
        f, p, r, prm = best(lambda **k: cv2.createBackgroundSubtractorMOG2(**k), mog2_grid, frames, truth, ev)
        res.append(("MOG2 tuned", (f, p, r), str(prm)))
        res.append(("KNN default", fmeasure(run(cv2.createBackgroundSubtractorKNN(), frames, False), truth, ev), ""))
        f, p, r, prm = best(lambda **k: cv2.createBackgroundSubtractorKNN(**k), knn_grid, frames, truth, ev)
        res.append(("KNN tuned", (f, p, r), str(prm)))
        for method, (f, p, r), prm in res:
            print("%-13s %-18s %7.4f %7.4f %7.4f  %s" % (name, method, f, p, r, prm))
            sys.stdout.flush()
        rows.append((name, res))
    ok = all(res[0][1][0] > max(x[1][0] for x in res[1:]) for _, res in rows)
    print("ours beats every OpenCV row on every sequence:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
