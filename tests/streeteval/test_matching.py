#!/usr/bin/python3
"""cpu suite: score_street.py's identity switches. On a seeded pair of people walking side by
side (their boxes overlap), each followed by its own track with jittered boxes, CLEAR-MOT
matching (keep a person's track while it still covers the person) counts no switch, while
matching greedily by IoU every frame counts some (so the first check can fail); tracks that
really trade people count two switches either way. The split-people and group-track shares count
a person in two pieces and one track over two people, and nothing on one track per person; a
track on an unknown region (the footage's own mover) counts as on a mover, not on background. Usage: test_matching.py OVERLAY_LAYOUT_TOOL"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score_street  # noqa: E402

W, H, SKIP = 640, 360, 0


def track(tid, b):
    return {"roi-type": "track", "id": tid, "x": b[0], "y": b[1], "width": b[2], "height": b[3],
            "track": {"id": tid, "distance": 0.1, "lost": False}}


def sequence(seed, frames, gap, trade_at=None):
    """Two people `gap` pixels apart (40 wide: gap < 40 overlaps); tracks 7 and 9 follow them
    with +-6 px of jitter; from frame `trade_at` on the tracks follow the other person."""
    rng = random.Random(seed)
    truth, dumps = [], {}
    for f in range(frames):
        x = 20 + 2 * f
        people = [(x, 100, 40, 110), (x + gap, 104, 40, 110)]
        truth.append({"people": [{"id": i, "x": p[0], "y": p[1], "w": p[2], "h": p[3], "visible": 1.0}
                                 for i, p in enumerate(people)], "unknown": []})
        ids = (7, 9) if trade_at is None or f < trade_at else (9, 7)
        rois = []
        for tid, p in zip(ids, people):
            j = [rng.randint(-6, 6) for _ in range(4)]
            rois.append(track(tid, (p[0] + j[0], p[1] + j[1], p[2] + j[2], p[3] + j[3])))
        dumps[f] = rois
    return truth, dumps


def switches(tool, truth, dumps, keep):
    return score_street.score(truth, dumps, W, H, SKIP, tool, True, keep_matches=keep)["idsw"]


def main():
    tool = sys.argv[1]
    greedy_total = 0
    for seed in range(1, 6):
        truth, dumps = sequence(seed, 60, gap=14)
        assert switches(tool, truth, dumps, True) == 0, seed
        greedy_total += switches(tool, truth, dumps, False)
        # Far apart, the tracks trading people is a switch for each person in both modes.
        truth, dumps = sequence(seed, 60, gap=120, trade_at=30)
        assert switches(tool, truth, dumps, True) == 2, seed
        assert switches(tool, truth, dumps, False) == 2, seed
    # Greedy matching flips the overlapping pair between its tracks.
    assert greedy_total > 0, greedy_total
    # One track per person: nobody split, no group track. The first person's track split into a
    # top and a bottom half: that person split in every frame; one track over both people (gap 14,
    # the box spanning both): a group track.
    truth, dumps = sequence(3, 20, gap=120)
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["split_share"] == 0.0 and r["group_track_share"] == 0.0, r
    for f, rois in dumps.items():
        p = truth[f]["people"][0]
        rois[0] = track(7, (p["x"], p["y"], p["w"], p["h"] // 2))
        rois.append(track(11, (p["x"], p["y"] + p["h"] // 2, p["w"], p["h"] - p["h"] // 2)))
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["split_share"] == 0.5 and r["group_track_share"] == 0.0, r
    truth, dumps = sequence(4, 20, gap=14)
    for f, rois in dumps.items():
        a, b = truth[f]["people"]
        rois[:] = [track(7, (a["x"], a["y"], b["x"] + b["w"] - a["x"], b["y"] + b["h"] - a["y"]))]
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["group_track_share"] == 1.0 and r["split_share"] == 0.0, r
    # Tracks on the footage's own movers: an unknown region under the second person's track with
    # that person not annotated counts one mover track a frame and no background; moved off both,
    # it counts as background.
    truth, dumps = sequence(5, 20, gap=120)
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["movers_per_frame"] == 0.0 and r["bg_track_share"] == 0.0, r
    assert r["on_people_per_frame"] == 2.0, r
    for t in truth:
        b = t["people"].pop()
        t["unknown"] = [[b["x"], b["y"], b["w"], b["h"]]]
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["movers_per_frame"] == 1.0 and r["bg_track_share"] == 0.0, r
    assert r["on_people_per_frame"] == 1.0, r
    for t in truth:
        t["unknown"] = []
    r = score_street.score(truth, dumps, W, H, SKIP, tool, True)
    assert r["movers_per_frame"] == 0.0 and r["bg_track_share"] == 0.5, r
    print("ok: greedy matching counted %d switches on the overlapping pairs" % greedy_total)


if __name__ == "__main__":
    main()
