#!/usr/bin/env python3
"""Turns a background dump of 4:2:0 frames (I420 or NV12: luma first) into the compact form that
score.py reads as "<sequence>.bgyd": the luma planes only, each frame stored as its difference
from the previous frame modulo 256 (the first frame as is). A background changes in few pixels
from one frame to the next, so the differences are mostly zeros and xz shrinks them to a small
fraction of the frames (the GPU host returns at most 16 MiB per file; a 1080p sequence's
backgrounds are ~750 MB raw). Lossless: qualitylib.load_background_y undoes it with a running sum.

Usage: bg_luma_delta.py WIDTH HEIGHT FRAMES < frames.yuv > out.bgyd   (streams frame by frame)
"""
import sys

import numpy as np


def main():
    w, h, n = (int(v) for v in sys.argv[1:4])
    frame_bytes, luma = w * h * 3 // 2, w * h
    src, dst = sys.stdin.buffer, sys.stdout.buffer
    prev = np.zeros(luma, np.uint8)
    for t in range(n):
        buf = src.read(frame_bytes)
        if len(buf) != frame_bytes:
            sys.exit("bg_luma_delta: frame %d: %d bytes, expected %d" % (t, len(buf), frame_bytes))
        y = np.frombuffer(buf, np.uint8, luma)
        dst.write((y - prev).tobytes())  # uint8 arithmetic wraps: modulo 256
        prev = y.copy()
    if src.read(1):
        sys.exit("bg_luma_delta: more than %d frames" % n)


if __name__ == "__main__":
    main()
