#!/usr/bin/python3
"""Tracking quality of rcdtrack next to OpenCV's CSRT and KCF on the same sequences.

Makes the sequences with make_sequences.py (real video backgrounds and textures from Debian's
opencv-doc; exact ground truth) unless they exist, runs our tracker through the rcdtrack_eval program
(build/tests/bench/rcdtrack/rcdtrack_eval) and CSRT and KCF from Debian's python3-opencv with their
default parameters, all initialised with the first ground-truth box, and reports per sequence and
tracker:
  mean IoU      mean intersection over union over frames 1..N-1;
  AUC           area under the OTB success plot: the mean over the 21 thresholds 0, 0.05, .., 1
                of the fraction of frames with IoU > threshold;
  P@20          the fraction of frames whose box centre is within 20 pixels of the truth's;
  ms/frame      time per frame (ours: the tracker's process(); OpenCV: update()).
When an OpenCV tracker reports failure for a frame, its previous box is kept (as ours keeps the last
box of a lost target).

Usage: /usr/bin/python3 tests/tracking/eval_tracking.py [--seq DIR] [--eval PROGRAM]
           [--backend cpu|cuda] [--set eval|dev] [--out FILE.md] [--frames N] [--only NAME]
           [--no-opencv] [-- OPTIONS...]
Options after `--` go to rcdtrack_eval (e.g. --features x,y,r,g,b,ix,iy). Not part of CI.
"""
import argparse
import os
import subprocess
import sys
import time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_sequences  # noqa: E402


def load(d):
    meta = dict(line.split() for line in open(os.path.join(d, "meta.txt")))
    w, h, n = int(meta["width"]), int(meta["height"]), int(meta["frames"])
    frames = np.memmap(os.path.join(d, "frames.rgb"), np.uint8, "r", shape=(n, h, w, 3))
    truth = np.loadtxt(os.path.join(d, "groundtruth.txt"), delimiter=",", ndmin=2)
    return frames, truth


def iou(a, b):
    ax1, ay1, bx1, by1 = a[:, 0] + a[:, 2], a[:, 1] + a[:, 3], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    iw = np.clip(np.minimum(ax1, bx1) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    ih = np.clip(np.minimum(ay1, by1) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = iw * ih
    union = a[:, 2] * a[:, 3] + b[:, 2] * b[:, 3] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def metrics(boxes, truth):
    b, t = boxes[1:], truth[1:]
    o = iou(b, t)
    auc = np.mean([np.mean(o > th) for th in np.linspace(0, 1, 21)])
    dc = np.hypot(b[:, 0] + b[:, 2] / 2 - t[:, 0] - t[:, 2] / 2, b[:, 1] + b[:, 3] / 2 - t[:, 1] - t[:, 3] / 2)
    return o.mean(), auc, np.mean(dc <= 20)


def run_opencv(make, frames, init):
    tr = make()
    tr.init(cv2.cvtColor(np.asarray(frames[0]), cv2.COLOR_RGB2BGR), tuple(int(v) for v in init))
    boxes = [list(init)]
    t0 = time.perf_counter()
    for f in frames[1:]:
        ok, b = tr.update(cv2.cvtColor(np.asarray(f), cv2.COLOR_RGB2BGR))
        boxes.append(list(b) if ok else boxes[-1])
    ms = 1e3 * (time.perf_counter() - t0) / max(1, len(frames) - 1)
    return np.array(boxes, np.float64), ms


def run_ours(program, d, backend, extra, tag):
    out = os.path.join(d, "rcdtrack%s.txt" % ("-" + tag if tag else ""))
    r = subprocess.run([program, d, "--backend", backend, "--out", out] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("rcdtrack_eval failed: " + r.stderr)
    ms = float(r.stdout.split(",")[1].split()[0])
    return np.loadtxt(out, delimiter=",", ndmin=2), ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", default=os.path.join(os.getcwd(), "build", "tracking-sequences"))
    ap.add_argument("--eval", default=os.path.join(os.getcwd(), "build", "tests", "bench",
                                                   "rcdtrack", "rcdtrack_eval"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/gst-cuda-vision/opencv-doc"))
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--only")
    ap.add_argument("--set", choices=sorted(make_sequences.SETS), default="eval")
    ap.add_argument("--no-opencv", action="store_true", help="only rcdtrack (quick comparisons)")
    ap.add_argument("--out")
    ap.add_argument("--tag", help="name of our box file: DIR/rcdtrack-TAG.txt")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    data = None
    rows = []
    wins = 0
    names = [s for s in make_sequences.SETS[a.set] if not a.only or s[0] == a.only]
    for s in names:
        d = os.path.join(a.seq, s[0])
        if not os.path.exists(os.path.join(d, "meta.txt")):
            data = data or make_sequences.fetch_opencv_doc(a.cache)
            make_sequences.make(*s, data, a.seq, a.frames)
        frames, truth = load(d)
        results = {}
        results["rcdtrack"] = run_ours(a.eval, d, a.backend, a.extra, a.tag)
        if not a.no_opencv:
            results["CSRT"] = run_opencv(cv2.TrackerCSRT_create, frames, truth[0])
            results["KCF"] = run_opencv(cv2.TrackerKCF_create, frames, truth[0])
        auc = {}
        for name, (boxes, ms) in results.items():
            m_iou, m_auc, p20 = metrics(boxes, truth)
            auc[name] = m_auc
            rows.append((s[0], name, m_iou, m_auc, p20, ms))
            print("%-20s %-9s IoU %.3f  AUC %.3f  P@20 %.3f  %.1f ms/frame" % rows[-1], flush=True)
        wins += "CSRT" in auc and auc["rcdtrack"] > auc["CSRT"]
    lines = ["| sequence | tracker | mean IoU | success AUC | precision@20px | ms/frame |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    lines += ["| %s | %s | %.3f | %.3f | %.3f | %.1f |" % r for r in rows]
    lines.append("")
    lines.append("rcdtrack AUC above CSRT on %d of %d sequences (backend %s, options: %s)" %
                 (wins, len(names), a.backend, " ".join(a.extra) or "defaults"))
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
