#!/usr/bin/env python3
"""Where a configuration's errors on one sequence are: misses (FN) and false positives on shadow
(label 50) and background (label 0) pixels, per range of frames, with the same counting as
qualitylib.score_masks (scored frames only, unknown pixels left out). With --parked FIRST:LAST, the
pixels labelled unknown (170) in every frame FIRST..LAST (a parked object before it moves, and
whatever else stays unknown) are counted apart: misses there are the object over its own old place
(it is in the samples), false positives the ghost it leaves.

  error_breakdown.py CORPUS DUMPDIR SEQUENCE [--step 10] [--parked 120:145]
                     [--ages FIRST:LAST [--box Y0:Y1:X0:X1]]

--ages: the false positives of frames FIRST..LAST on background that an object uncovered (the
pixel's label went from object or unknown to background since FIRST - 1), by the number of frames
since it was uncovered: how far a ghost's false positives lag behind the object that leaves
(inside --box only, if given).

DUMPDIR holds SEQUENCE.mask[.gz|.xz] (seg_run or run_elements.sh layout)."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qualitylib as q  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("dumps")
    ap.add_argument("sequence")
    ap.add_argument("--step", type=int, default=10, help="frames per row")
    ap.add_argument("--parked", help="FIRST:LAST frames in which the parked object's pixels are unknown")
    ap.add_argument("--ages", help="FIRST:LAST frames: false positives on uncovered background by age")
    ap.add_argument("--box", help="Y0:Y1:X0:X1 (end exclusive) for --ages")
    a = ap.parse_args()
    meta = [m for m in q.sequences(a.corpus) if m["name"] == a.sequence]
    if not meta:
        sys.exit("%s: not in %s" % (a.sequence, a.corpus))
    meta = meta[0]
    labels, _ = q.load_truth(a.corpus, a.sequence)
    path = q.find_dump(a.dumps, a.sequence, "mask")
    if not path:
        sys.exit("no %s mask dump in %s" % (a.sequence, a.dumps))
    masks = q.load_masks(path, meta)
    parked = np.zeros(labels.shape[1:], bool)
    if a.parked:
        f0, f1 = (int(v) for v in a.parked.split(":"))
        parked = np.all(labels[f0:f1 + 1] == 170, axis=0)
        print("parked footprint: %d pixels (unknown in every frame %d-%d)" % (parked.sum(), f0, f1))
    cols = ["tp", "fn", "fp_shadow", "fp_bg"] + (["fn_parked", "fp_parked"] if a.parked else [])
    print("frames   " + " ".join("%10s" % c for c in cols))
    total = np.zeros(len(cols), np.int64)
    for t0 in range(meta["warmup"], meta["frames"], a.step):
        lab, m = labels[t0:t0 + a.step], masks[t0:t0 + a.step]
        out = parked[None] if a.parked else np.zeros((1,) + parked.shape, bool)
        row = [np.count_nonzero(m & (lab == 255) & ~out), np.count_nonzero(~m & (lab == 255) & ~out),
               np.count_nonzero(m & (lab == 50) & ~out), np.count_nonzero(m & (lab == 0) & ~out)]
        if a.parked:
            row[0] += np.count_nonzero(m & (lab == 255) & out)
            row += [np.count_nonzero(~m & (lab == 255) & out), np.count_nonzero(m & (lab <= 50) & out)]
        total += row
        print("%3d-%3d  " % (t0, min(meta["frames"], t0 + a.step) - 1) + " ".join("%10d" % v for v in row))
    print("total    " + " ".join("%10d" % v for v in total))
    if a.ages:
        uncovered_ages(labels, masks, a.ages, a.box)
    r = q.score_masks(masks, labels, meta)
    print("F %.3f precision %.3f recall %.3f shadow FPR %s" % (
        r["F"], r["precision"], r["recall"], "-" if r["shadow_fpr"] is None else "%.3f" % r["shadow_fpr"]))


def uncovered_ages(labels, masks, frames, box):
    f0, f1 = (int(v) for v in frames.split(":"))
    y0, y1, x0, x1 = (int(v) for v in box.split(":")) if box else (0, labels.shape[1], 0, labels.shape[2])
    lab, m = labels[:, y0:y1, x0:x1], masks[:, y0:y1, x0:x1]
    since = np.full(lab.shape[1:], -1)  # frame the pixel was last uncovered, -1: never
    buckets = [(0, 1), (2, 3), (4, 7), (8, 15), (16, 31), (32, 10 ** 6)]
    hist = np.zeros(len(buckets), np.int64)
    for t in range(f0, f1 + 1):
        since[(lab[t - 1] >= 170) & (lab[t] <= 50)] = t
        since[lab[t] >= 170] = -1
        fp = m[t] & (lab[t] <= 50) & (since >= 0)
        age = t - since[fp]
        for k, (lo, hi) in enumerate(buckets):
            hist[k] += np.count_nonzero((age >= lo) & (age <= hi))
    print("false positives on uncovered background, frames %d-%d: %d" % (f0, f1, hist.sum()))
    print("  frames since uncovered: " + ", ".join(
        "%s %d" % ("%d-%d" % b if b[1] < 10 ** 6 else "%d+" % b[0], v) for b, v in zip(buckets, hist)))


if __name__ == "__main__":
    main()
