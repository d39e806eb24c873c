#!/usr/bin/python3
"""Accuracy of the cudaactionmatch element (nearest prototype of a `cvis-action train` dictionary,
every other property at its default) on the clips of a KTH-like dataset folder: each clip is
decoded and run through the element; its blocks' recognised labels (the element messages) vote,
ties going to the block of the smallest distance; a clip without a recognised block counts as
wrong. Used for the cross-renderer figure (a dictionary trained on one generator, clips of the
other), which needs no matching of the test clips against every training candidate.

Usage: element_eval.py DICT DATASET_DIR [--backend cpu|cuda] [--verbose]
Run with GST_PLUGIN_PATH=build/gst.
"""
import argparse
import glob
import os
import re
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def classify(path, model, backend):
    desc = ("filesrc location=\"%s\" ! decodebin ! videoconvert ! video/x-raw,format=NV12 "
            "! cudaactionmatch name=m backend=%s model-location=\"%s\" ! fakesink" % (path, backend, model))
    pipe = Gst.parse_launch(desc)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    blocks = []
    while True:
        msg = bus.timed_pop_filtered(600 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR |
                                     Gst.MessageType.ELEMENT)
        if msg is None or msg.type == Gst.MessageType.EOS:
            break
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            pipe.set_state(Gst.State.NULL)
            sys.exit("element_eval: %s: %s" % (path, err.message))
        s = msg.get_structure()
        if s is not None and s.has_field("label") and s.has_field("distance"):
            blocks.append((s.get_value("label"), s.get_value("distance")))
    pipe.set_state(Gst.State.NULL)
    if not blocks:
        return None, blocks
    votes = {}
    for label, d in blocks:
        n, best = votes.get(label, (0, float("inf")))
        votes[label] = (n + 1, min(best, d))
    return min(votes.items(), key=lambda kv: (-kv[1][0], kv[1][1]))[0], blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dict")
    ap.add_argument("dataset")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    Gst.init(None)
    clips = sorted(glob.glob(os.path.join(a.dataset, "*", "person*_*_d*.avi")))
    if not clips:
        sys.exit("element_eval: no clips in %s" % a.dataset)
    ok = 0
    confusion = {}
    t0 = time.time()
    for c in clips:
        truth = os.path.basename(os.path.dirname(c))
        m = re.match(r"person(\d+)_", os.path.basename(c))
        pred, blocks = classify(c, a.dict, a.backend)
        ok += pred == truth
        confusion[(truth, pred)] = confusion.get((truth, pred), 0) + 1
        if a.verbose:
            print("%s subject %s: %s (%s)" % (truth, m.group(1), pred, ", ".join(b[0] for b in blocks)), flush=True)
    labels = sorted({k[0] for k in confusion})
    print("confusion (rows: true, columns: recognised, '-': none)")
    print("%14s" % "" + "".join(" %6.6s" % l for l in labels) + "      -")
    for t in labels:
        print("%14.14s" % t + "".join(" %6d" % confusion.get((t, p), 0) for p in labels) +
              " %6d" % confusion.get((t, None), 0))
    print("accuracy: %d/%d (%.1f%%) in %.0f s" % (ok, len(clips), 100.0 * ok / len(clips), time.time() - t0))


if __name__ == "__main__":
    main()
