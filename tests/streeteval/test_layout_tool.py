#!/usr/bin/python3
"""cpu suite: score_street.py's label rectangles come from the overlay's layout (the
overlay_layout tool): on seeded crowded frames they lie inside the frame and do not overlap with
the layout on; with it off every ROI's label sits above its box (the earlier rule), and
overlaps appear. Usage: test_layout_tool.py OVERLAY_LAYOUT_TOOL"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score_street  # noqa: E402


def frames(seed, n, W, H):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        rois = []
        for i in range(rng.randrange(5, 60)):
            w, h = rng.randrange(4, 120), rng.randrange(8, 200)
            t = rng.choice(["foreground", "track", "walking"])
            r = {"roi-type": t, "id": i, "x": rng.randrange(-20, W), "y": rng.randrange(-20, H),
                 "width": w, "height": h}
            if t == "track":
                r["track"] = {"id": 100 + i, "distance": rng.random(), "lost": rng.random() < 0.2}
            elif t == "foreground":
                r["foreground"] = {"area": w * h // 2}
            rois.append(r)
        out.append(rois)
    return out


def main():
    tool = sys.argv[1]
    for W, H in [(640, 360), (1920, 1080)]:
        fr = frames(W, 20, W, H)
        on = score_street.layout_labels(tool, fr, W, H)
        off = score_street.layout_labels(tool, fr, W, H, label_layout=False)
        assert len(on) == len(off) == len(fr)
        overlaps_off = 0
        for rois, a, b in zip(fr, on, off):
            assert 0 < len(a) <= len(rois), (len(a), len(rois))
            for i, r in enumerate(a):
                assert r[0] >= 0 and r[1] >= 0 and r[0] + r[2] <= W and r[1] + r[3] <= H, r
                assert all(score_street.inter(r, q) == 0 for q in a[:i]), (r, a[:i])
            overlaps_off += sum(1 for i, r in enumerate(b) if any(score_street.inter(r, q) > 0 for q in b[:i]))
        # Without the layout the same frames have overlapping labels: the check above can fail.
        assert overlaps_off > 0
    print("ok")


if __name__ == "__main__":
    main()
