#!/usr/bin/python3
"""Scores the street chain's dumps (run_chain.py) against make_street.py's ground truth.

Per sequence, over the frames from --skip on (default 20: the background model's start):
  people       mean people present per frame (annotated, visible fraction >= 0.3)
  fg/frame     mean foreground boxes (roi_type foreground) per frame
  fg recall    share of present people covered by a foreground box (IoU >= 0.3, or the box inside
               the person / the person inside the box by 70% of the smaller area)
  tracks/frame mean track boxes (roi_type track, not lost) per frame
  track recall share of present people matched by a track (same rule; one track per person).
               --matching clear-mot (default): a person's last matched track is kept while it is
               present, not lost and passes the rule (CLEAR-MOT's correspondences); the other
               people and tracks are then matched greedily by IoU. --matching greedy: every frame
               greedily by IoU alone (an ambiguous group then flips between its tracks)
  IDSW         identity switches: a person matched to a track id other than the one it was last
               matched to (CLEAR-MOT's mismatches); also ID changes per person
  bg tracks    share of track boxes (not lost) on background: no person and no unknown region
               (the footage's own movers) overlaps them by 30% of the track box or IoU 0.1
  movers/frame mean track boxes (not lost) per frame on the footage's own movers: no person but an
               unknown region overlaps them (same rule)
  on people    mean track boxes (not lost) per frame on the annotated people (a person overlaps
               them by the same rule): tracks/frame is this, the movers' and the background's
  split        share of present people with two or more tracks (not lost) lying by half or more
               on them: one person in pieces (torso and legs, head and body) or duplicates
  group tracks share of track boxes (not lost) holding 60% or more of each of two or more people
               (one track over a group)
  lost/frame   mean lost track boxes per frame (drawn where last seen)
  labels/frame  labels the overlay draws per frame at its defaults
  label overlap share of those labels that overlap another label: the placements of
               cvis::overlay::layout_labels (the overlay_layout tool of the build, --layout), s =
               max(1, height/360); texts, short texts and priorities rebuilt as
               gst/cudaroioverlay's make_label does

Usage: score_street.py STREETDIR RESULTSDIR [--split dev|eval|all] [--markdown FILE] [--json FILE]
                       [--layout BUILD/tests/streeteval/overlay_layout] [--label-layout on|off]
                       [--matching clear-mot|greedy]
RESULTSDIR/<sequence>/rois.jsonl as run_chain.py writes them.
"""
import argparse
import json
import os
import subprocess


def inter(a, b):
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0, iw) * max(0, ih)


def iou(a, b):
    i = inter(a, b)
    u = a[2] * a[3] + b[2] * b[3] - i
    return i / u if u > 0 else 0.0


def covers(box, person):
    i = inter(box, person)
    small = min(box[2] * box[3], person[2] * person[3])
    return iou(box, person) >= 0.3 or (small > 0 and i >= 0.7 * small)


def params(roi):
    return [v for v in roi.values() if isinstance(v, dict)]


def label_texts(roi):
    """gst/cudaroioverlay's make_label: "<label or type> <id> <score> d<distance> <area>px lost"
    and its short form "<label or type> <id>"; and the element's layout priority."""
    t = roi.get("roi-type")
    name = "roi" if not t else ("fg" if t == "foreground" else t)
    extra, ident, lost = "", roi.get("id", -1), False
    for p in params(roi):
        if p.get("label"):
            name = p["label"]
        if isinstance(p.get("id"), int):
            ident = p["id"]
        if isinstance(p.get("score"), float):
            extra += " %.2f" % p["score"]
        if isinstance(p.get("distance"), float):
            extra += " d%.2f" % p["distance"]
        if isinstance(p.get("area"), int):
            extra += " %dpx" % p["area"]
        if p.get("lost") is True:
            extra += " lost"
            lost = True
    if ident >= 0:
        name += " %d" % ident
    priority = (1 if lost else 3) if t == "track" else (0 if t == "foreground" else 2)
    return name + extra, name, priority


def clean(text):
    return "".join(c if 32 <= ord(c) <= 126 else "?" for c in text)


def layout_labels(tool, frames, W, H, label_layout=True):
    """Label rectangles (x, y, w, h) the overlay draws for each frame's ROIs at its defaults (or
    label-layout=false), by cvis::overlay::layout_labels (the overlay_layout tool of the build):
    one list per frame."""
    s = max(1, H // 360)
    lines = []
    for rois in frames:
        lines.append("%d %d %d %d" % (W, H, s, 1 if label_layout else 0))
        for r in rois:
            full, short, prio = label_texts(r)
            lines.append("\t".join([str(r["x"]), str(r["y"]), str(r["width"]), str(r["height"]), str(prio),
                                    clean(full), clean(short)]))
        lines.append("end")
    # Cross builds run the tool through Meson's exe_wrapper (e.g. qemu-aarch64).
    wrapper = os.environ.get("CVIS_EXE_WRAPPER", "").split()
    out = subprocess.run(wrapper + [tool], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True).stdout
    rects, cur = [], []
    for line in out.splitlines():
        if line == "end":
            rects.append(cur)
            cur = []
        elif line != "-":
            x, y, w, h = (int(v) for v in line.split(" ", 4)[:4])
            cur.append((x, y, w, h))
    return rects


def is_lost(roi):
    return any(p.get("lost") is True for p in params(roi))


def track_id(roi):
    for p in params(roi):
        if isinstance(p.get("id"), int):
            return p["id"]
    return roi.get("id")


def box(r):
    return (r["x"], r["y"], r["width"], r["height"])


def score(truth, dumps, W, H, skip, layout_tool, label_layout, keep_matches=True):
    acc = dict(people=[], fg=[], fg_hit=0, tracks=[], trk_hit=0, present=0, bg=0, trk_total=0, lost=[],
               labels=0, labels_over=0, idsw=0, split=0, group=0, movers=0, on_people=0)
    last = {}
    ids_per_person = {}
    scored = [f for f in range(len(truth)) if f >= skip and f in dumps]
    labels_of = dict(zip(scored, layout_labels(layout_tool, [dumps[f] for f in scored], W, H, label_layout)))
    for f, t in enumerate(truth):
        if f < skip or f not in dumps:
            continue
        rois = dumps[f]
        people = [(p["id"], (p["x"], p["y"], p["w"], p["h"])) for p in t["people"] if p["visible"] >= 0.3]
        unknown = [tuple(u) for u in t["unknown"]]
        fg = [box(r) for r in rois if r.get("roi-type") == "foreground"]
        tr = [(track_id(r), box(r)) for r in rois if r.get("roi-type") == "track" and not is_lost(r)]
        acc["people"].append(len(people))
        acc["fg"].append(len(fg))
        acc["tracks"].append(len(tr))
        acc["lost"].append(sum(1 for r in rois if r.get("roi-type") == "track" and is_lost(r)))
        acc["present"] += len(people)
        acc["fg_hit"] += sum(1 for _, pb in people if any(covers(b, pb) for b in fg))
        # One-to-one matching of tracks to people (the cover rule as the gate): with keep_matches,
        # first each person's last track where it still passes, then greedily by IoU.
        pairs = sorted(((iou(tb, pb), i, j) for i, (_, tb) in enumerate(tr) for j, (_, pb) in enumerate(people)
                        if covers(tb, pb)), reverse=True)
        if keep_matches:
            pairs = [p for p in pairs if last.get(people[p[2]][0]) == tr[p[1]][0]] + pairs
        used_t, used_p = set(), set()
        for _, i, j in pairs:
            if i in used_t or j in used_p:
                continue
            used_t.add(i)
            used_p.add(j)
            pid, tid = people[j][0], tr[i][0]
            acc["trk_hit"] += 1
            if pid in last and last[pid] != tid:
                acc["idsw"] += 1
            last[pid] = tid
            ids_per_person.setdefault(pid, set()).add(tid)
        for _, pb in people:
            acc["split"] += 1 if sum(1 for _, tb in tr if 2 * inter(tb, pb) >= tb[2] * tb[3]) >= 2 else 0
        for _, tb in tr:
            acc["group"] += 1 if sum(1 for _, pb in people if inter(tb, pb) >= 0.6 * pb[2] * pb[3]) >= 2 else 0
            acc["trk_total"] += 1
            def on(regions):
                return any(inter(tb, o) >= 0.3 * tb[2] * tb[3] or iou(tb, o) >= 0.1 for o in regions)
            on_person = on([p for _, p in people])
            acc["movers"] += 1 if not on_person and on(unknown) else 0
            acc["on_people"] += 1 if on_person else 0
            acc["bg"] += 0 if on_person or on(unknown) else 1
        labels = labels_of[f]
        for i, a in enumerate(labels):
            acc["labels"] += 1
            if any(inter(a, b) > 0 for j, b in enumerate(labels) if j != i):
                acc["labels_over"] += 1
    pf = max(1, len(acc["people"]))
    return dict(frames=len(acc["people"]), people=sum(acc["people"]) / len(acc["people"]) if acc["people"] else 0.0,
                fg_per_frame=sum(acc["fg"]) / pf, fg_recall=acc["fg_hit"] / max(1, acc["present"]),
                tracks_per_frame=sum(acc["tracks"]) / pf, track_recall=acc["trk_hit"] / max(1, acc["present"]),
                idsw=acc["idsw"], ids_per_person=sum(len(v) for v in ids_per_person.values()) / len(ids_per_person)
                if ids_per_person else 0.0,
                bg_track_share=acc["bg"] / max(1, acc["trk_total"]), lost_per_frame=sum(acc["lost"]) / pf,
                movers_per_frame=acc["movers"] / pf, on_people_per_frame=acc["on_people"] / pf,
                split_share=acc["split"] / max(1, acc["present"]), group_track_share=acc["group"] / max(1, acc["trk_total"]),
                label_overlap_share=acc["labels_over"] / max(1, acc["labels"]), labels_per_frame=acc["labels"] / pf)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("street")
    ap.add_argument("results")
    ap.add_argument("--split", default="all", choices=["dev", "eval", "all"])
    ap.add_argument("--skip", type=int, default=20)
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--layout", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                     "build", "tests", "streeteval", "overlay_layout"))
    ap.add_argument("--label-layout", default="on", choices=["on", "off"],
                    help="the overlay's label-layout property (off: every label above its box)")
    ap.add_argument("--matching", default="clear-mot", choices=["clear-mot", "greedy"],
                    help="keep last frame's correspondences (CLEAR-MOT) or match greedily every frame")
    a = ap.parse_args()
    res = {}
    for name in sorted(os.listdir(a.street)):
        mp = os.path.join(a.street, name, "meta.json")
        dp = os.path.join(a.results, name, "rois.jsonl")
        if not os.path.isfile(mp) or not os.path.isfile(dp):
            continue
        meta = json.load(open(mp))
        if a.split not in ("all", meta["split"]):
            continue
        truth = json.load(open(os.path.join(a.street, name, "truth.json")))
        dumps = {}
        for line in open(dp):
            d = json.loads(line)
            dumps[d["frame"]] = d["rois"]
        r = score(truth, dumps, meta["width"], meta["height"], a.skip, a.layout, a.label_layout == "on",
                  a.matching == "clear-mot")
        run = os.path.join(a.results, name, "run.json")
        if os.path.isfile(run):
            rj = json.load(open(run))
            r["s_per_frame"] = rj["seconds"] / max(1, rj["frames"])
        else:
            r["s_per_frame"] = None
        res[name] = r
    cols = [("frames", "frames scored", "%d"), ("people", "people/frame", "%.2f"), ("fg_per_frame", "fg boxes/frame", "%.2f"),
            ("fg_recall", "fg recall", "%.2f"), ("tracks_per_frame", "tracks/frame", "%.2f"),
            ("track_recall", "track recall", "%.2f"), ("idsw", "ID switches", "%d"),
            ("ids_per_person", "track ids per person", "%.2f"), ("bg_track_share", "tracks on background", "%.2f"),
            ("on_people_per_frame", "tracks on people/frame", "%.2f"),
            ("movers_per_frame", "tracks on movers/frame", "%.2f"),
            ("split_share", "people split", "%.2f"), ("group_track_share", "group tracks", "%.2f"),
            ("lost_per_frame", "lost tracks/frame", "%.2f"), ("labels_per_frame", "labels/frame", "%.2f"),
            ("label_overlap_share", "labels overlapping", "%.2f"),
            ("s_per_frame", "s/frame", "%.2f")]
    lines = ["| sequence | " + " | ".join(c[1] for c in cols) + " |", "| --- |" + " ---: |" * len(cols)]
    for name, r in res.items():
        lines.append("| %s | %s |" % (name, " | ".join("-" if r[k] is None else f % r[k] for k, _, f in cols)))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text + "\n")
    if a.json:
        json.dump(res, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
