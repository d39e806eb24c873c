#!/usr/bin/python3
"""Accuracy of the cudaactionmatch element (a `cvis-action train` dictionary, every other property
at its default) on the clips of a KTH-like dataset folder: each clip is decoded and run through the
element. With a prototype dictionary (file version 1 or 2) its blocks' recognised labels (the
element messages) vote, ties going to the block of the smallest distance; with a ridge dictionary
(version 3) the label of the last recognised block is the clip's (the element averages the
distances of up to three blocks: a 100-frame clip's last block gets the tool's clip label). A clip
without a recognised block counts as wrong. Used for the cross-renderer figure (a
dictionary trained on one generator, clips of the other) and the element's leave-one-subject-out
figure (a dictionary per held-out subject, `--subject`).

Usage: element_eval.py DICT DATASET_DIR [--backend cpu|cuda] [--subject N] [--verbose]
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


def dictionary_version(path):
    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) < 12 or head[:8] != b"CVISACTD":
        sys.exit("element_eval: %s is not a cvis-action dictionary" % path)
    return int.from_bytes(head[8:12], "little")


def classify(path, model, backend, last_block):
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
            blocks.append((s.get_value("label"), s.get_value("distance"),
                           s.get_value("first-frame")))
    pipe.set_state(Gst.State.NULL)
    if not blocks:
        return None, blocks
    if last_block:
        last = max(b[2] for b in blocks)
        return next((b[0] for b in blocks if b[2] == last), None), blocks
    votes = {}
    for label, d, _ in blocks:
        n, best = votes.get(label, (0, float("inf")))
        votes[label] = (n + 1, min(best, d))
    return min(votes.items(), key=lambda kv: (-kv[1][0], kv[1][1]))[0], blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dict")
    ap.add_argument("dataset")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--subject", type=int, help="only this subject's clips")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    Gst.init(None)
    last_block = dictionary_version(a.dict) >= 3
    clips = sorted(glob.glob(os.path.join(a.dataset, "*", "person*_*_d*.avi")))
    if a.subject is not None:
        clips = [c for c in clips if re.match(r"person0*%d_" % a.subject, os.path.basename(c))]
    if not clips:
        sys.exit("element_eval: no clips in %s" % a.dataset)
    ok = 0
    confusion = {}
    t0 = time.time()
    for c in clips:
        truth = os.path.basename(os.path.dirname(c))
        m = re.match(r"person(\d+)_", os.path.basename(c))
        pred, blocks = classify(c, a.dict, a.backend, last_block)
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
