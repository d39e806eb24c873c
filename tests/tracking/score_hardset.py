#!/usr/bin/python3
"""Scores trackers on the tracking set of hardset.py: rcdtrack (the library through rcdtrack_eval,
default parameters, CPU or CUDA backend) and OpenCV's CSRT (Debian's python3-opencv, defaults), both
initialised with the first ground-truth box.

Per sequence and tracker, over the frames 1..N-1 where the target is present (visible fraction
>= 0.1; a tracker's box on an absent frame is not scored):
  AUC      OTB success AUC: the mean over the 21 IoU thresholds 0, 0.05, .., 1 of the fraction of
           frames with IoU above the threshold (as eval_tracking.py)
  IoU      mean intersection over union
  P@20     fraction of frames with the box centre within 20 pixels of the truth's (at 2048x1152:
           within 20 * width / 640)
  over2    fraction of frames whose box is more than twice the truth's area (a box that grew past
           its target, e.g. after a partial occlusion)
  ms       time per frame (rcdtrack: its process(); CSRT: update())
The boxes are kept in SEQDIR/<tracker>.txt; --reuse scores existing ones without running again.

Usage: /usr/bin/python3 tests/tracking/score_hardset.py [--seq DIR] [--split dev|dev2|eval|all]
           [--only a,b] [--trackers rcdtrack,csrt] [--eval PROGRAM] [--backend cpu|cuda]
           [--reuse] [--markdown FILE] [--json FILE] [-- RCDTRACK_EVAL_OPTIONS...]
Makes missing sequences first (hardset.py).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hardset  # noqa: E402


def load(d):
    meta = dict(line.split() for line in open(os.path.join(d, "meta.txt")))
    w, h, n = int(meta["width"]), int(meta["height"]), int(meta["frames"])
    frames = np.memmap(os.path.join(d, "frames.rgb"), np.uint8, "r", shape=(n, h, w, 3))
    truth = np.loadtxt(os.path.join(d, "groundtruth.txt"), delimiter=",", ndmin=2)
    vis = np.loadtxt(os.path.join(d, "visible.txt"), ndmin=1)
    return frames, truth, vis, w


def iou(a, b):
    ax1, ay1, bx1, by1 = a[:, 0] + a[:, 2], a[:, 1] + a[:, 3], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    iw = np.clip(np.minimum(ax1, bx1) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    ih = np.clip(np.minimum(ay1, by1) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = iw * ih
    union = a[:, 2] * a[:, 3] + b[:, 2] * b[:, 3] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def metrics(boxes, truth, vis, width):
    keep = np.arange(len(truth)) > 0
    keep &= (vis >= 0.1) & (truth[:, 2] > 0)
    b, t = boxes[keep], truth[keep]
    o = iou(b, t)
    auc = float(np.mean([np.mean(o > th) for th in np.linspace(0, 1, 21)]))
    dc = np.hypot(b[:, 0] + b[:, 2] / 2 - t[:, 0] - t[:, 2] / 2, b[:, 1] + b[:, 3] / 2 - t[:, 1] - t[:, 3] / 2)
    over = float(np.mean(b[:, 2] * b[:, 3] > 2 * t[:, 2] * t[:, 3]))
    return dict(AUC=auc, IoU=float(o.mean()), P20=float(np.mean(dc <= 20 * width / 640.0)), over2=over,
                frames=int(keep.sum()), absent=int(len(truth) - 1 - keep.sum()))


def run_csrt(d, frames, init):
    tr = cv2.TrackerCSRT_create()
    tr.init(cv2.cvtColor(np.asarray(frames[0]), cv2.COLOR_RGB2BGR), tuple(int(v) for v in init))
    boxes = [list(init)]
    t0 = time.perf_counter()
    for f in frames[1:]:
        ok, b = tr.update(cv2.cvtColor(np.asarray(f), cv2.COLOR_RGB2BGR))
        boxes.append(list(b) if ok else boxes[-1])
    ms = 1e3 * (time.perf_counter() - t0) / max(1, len(frames) - 1)
    np.savetxt(os.path.join(d, "csrt.txt"), np.array(boxes), fmt="%d", delimiter=",")
    return ms


def run_rcdtrack(program, d, backend, extra):
    r = subprocess.run([program, d, "--backend", backend, "--out", os.path.join(d, "rcdtrack.txt")] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("rcdtrack_eval failed on %s: %s" % (d, r.stderr))
    return float(r.stdout.split(",")[1].split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seq", default=os.path.join(hardset.REPO, "build-eval", "tracking"))
    ap.add_argument("--eval", default=os.path.join(hardset.REPO, "build", "tests", "bench", "rcdtrack",
                                                   "rcdtrack_eval"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--split", default="dev", choices=["dev", "dev2", "eval", "all"])
    ap.add_argument("--only", default="")
    ap.add_argument("--trackers", default="rcdtrack,csrt")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    trackers = a.trackers.split(",")
    specs = [s for s in hardset.all_specs() if a.split in ("all", s["split"]) and (not only or s["name"] in only)]
    rows, res = [], {}
    for s in specs:
        d = hardset.make(s, a.seq)
        frames, truth, vis, width = load(d)
        res[s["name"]] = {}
        for tr in trackers:
            path = os.path.join(d, tr + ".txt")
            ms = None
            if not (a.reuse and os.path.isfile(path)):
                ms = (run_rcdtrack(a.eval, d, a.backend, a.extra) if tr == "rcdtrack"
                      else run_csrt(d, frames, truth[0]))
            m = metrics(np.loadtxt(path, delimiter=",", ndmin=2), truth, vis, width)
            m["ms"] = ms
            res[s["name"]][tr] = m
            print("%-18s %-9s AUC %.3f  IoU %.3f  P@20 %.3f  over2 %.3f  (%d frames, %d absent)  %s ms/frame"
                  % (s["name"], tr, m["AUC"], m["IoU"], m["P20"], m["over2"], m["frames"], m["absent"],
                     "-" if ms is None else "%.1f" % ms), flush=True)
    lines = ["| sequence | " + " | ".join("%s AUC" % t for t in trackers) + " | " +
             " | ".join("%s over2" % t for t in trackers) + " | frames scored (absent) |",
             "| --- |" + " ---: |" * (2 * len(trackers) + 1)]
    for name, r in res.items():
        m0 = r[trackers[0]]
        lines.append("| %s | %s | %s | %d (%d) |" % (
            name, " | ".join("%.3f" % r[t]["AUC"] for t in trackers),
            " | ".join("%.2f" % r[t]["over2"] for t in trackers), m0["frames"], m0["absent"]))
    means = {t: float(np.mean([r[t]["AUC"] for r in res.values()])) for t in trackers}
    lines.append("| mean | %s | | |" % " | ".join("%.3f" % means[t] for t in trackers))
    if "rcdtrack" in trackers and "csrt" in trackers:
        wins = sum(r["rcdtrack"]["AUC"] >= r["csrt"]["AUC"] for r in res.values())
        lines.append("")
        lines.append("rcdtrack AUC >= CSRT on %d of %d sequences; mean AUC %.3f (goal: every sequence, "
                     "mean >= 0.75)" % (wins, len(res), means["rcdtrack"]))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text + "\n")
    if a.json:
        json.dump(res, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
