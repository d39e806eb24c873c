#!/usr/bin/python3
"""A PNG contact sheet of a tracking sequence: every k-th frame, the ground-truth box in green (red
when the target is absent), and the boxes of box files given (e.g. rcdtrack.txt in blue, csrt.txt
in yellow), to check a sequence or a tracker's failure by eye.

Usage: contact_sheet.py SEQDIR OUT.png [--frames 8] [--boxes FILE ...]
"""
import argparse
import os

import cv2
import numpy as np

COLOURS = [(255, 0, 0), (255, 255, 0), (255, 0, 255), (0, 255, 255)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seq")
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--boxes", nargs="*", default=[])
    a = ap.parse_args()
    meta = dict(line.split() for line in open(os.path.join(a.seq, "meta.txt")))
    w, h, n = int(meta["width"]), int(meta["height"]), int(meta["frames"])
    frames = np.memmap(os.path.join(a.seq, "frames.rgb"), np.uint8, "r", shape=(n, h, w, 3))
    gt = np.loadtxt(os.path.join(a.seq, "groundtruth.txt"), delimiter=",", ndmin=2)
    others = [np.loadtxt(b, delimiter=",", ndmin=2) for b in a.boxes]
    tiles = []
    tw = 320
    for t in np.linspace(0, n - 1, a.frames).astype(int):
        img = np.ascontiguousarray(frames[t])
        s = tw / float(w)
        img = cv2.resize(img, (tw, int(round(h * s))), interpolation=cv2.INTER_AREA)
        x, y, bw, bh = gt[t] * s
        cv2.rectangle(img, (int(x), int(y)), (int(x + bw), int(y + bh)),
                      (0, 255, 0) if bw > 0 else (255, 0, 0), 1)
        for i, o in enumerate(others):
            x, y, bw, bh = o[t] * s
            cv2.rectangle(img, (int(x), int(y)), (int(x + bw), int(y + bh)), COLOURS[i % 4], 1)
        cv2.putText(img, str(t), (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
        tiles.append(img)
    while len(tiles) % 4:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i:i + 4]) for i in range(0, len(tiles), 4)]
    cv2.imwrite(a.out, cv2.cvtColor(np.vstack(rows), cv2.COLOR_RGB2BGR))


if __name__ == "__main__":
    main()
