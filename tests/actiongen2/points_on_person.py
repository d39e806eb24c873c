#!/usr/bin/python3
"""How many of the front end's interest points lie on the person: reads the point caches that
`cvis-action train|eval --cache DIR` writes (one .points file per clip: a key line, then int32
frames and count, then per point int32 frame, float32 x, y, response and the descriptor) and the
person's per-frame extent that gen_actions2.py --boxes writes, and prints per action and overall
the share of points inside the person's box (grown by MARGIN pixels) and the points per frame on
and off the person.

Usage: /usr/bin/python3 tests/actiongen2/points_on_person.py CACHE_DIR BOXES_DIR [--margin 2]
"""
import argparse
import collections
import os
import struct


def points(path):
    b = open(path, "rb").read()
    nl = b.index(b"\n")
    frames, n = struct.unpack_from("<ii", b, nl + 1)
    off = nl + 9
    rec = (len(b) - off) // n if n else 0
    for i in range(n):
        f, x, y, _ = struct.unpack_from("<ifff", b, off + i * rec)
        yield f, x, y
    return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache")
    ap.add_argument("boxes")
    ap.add_argument("--margin", type=float, default=2.0)
    a = ap.parse_args()
    on = collections.Counter()
    total = collections.Counter()
    frames = collections.Counter()
    for name in sorted(os.listdir(a.boxes)):
        if not name.endswith(".boxes"):
            continue
        cache = os.path.join(a.cache, name[:-len(".boxes")] + ".points")
        if not os.path.isfile(cache):
            continue
        action = name.split("__")[0]
        box = {}
        for line in open(os.path.join(a.boxes, name)):
            f, x0, y0, x1, y1 = (int(v) for v in line.split())
            box[f] = (x0 - a.margin, y0 - a.margin, x1 + a.margin, y1 + a.margin)
        frames[action] += len(box)
        for f, x, y in points(cache):
            total[action] += 1
            b = box.get(f)
            if b and b[0] <= x < b[2] and b[1] <= y < b[3]:
                on[action] += 1
    print("| action | points | on the person | points/frame on | points/frame off |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for act in sorted(total) + ["all"]:
        t = sum(total.values()) if act == "all" else total[act]
        o = sum(on.values()) if act == "all" else on[act]
        fr = sum(frames.values()) if act == "all" else frames[act]
        print("| %s | %d | %.3f | %.2f | %.2f |" % (act, t, o / max(1, t), o / max(1, fr), (t - o) / max(1, fr)))


if __name__ == "__main__":
    main()
