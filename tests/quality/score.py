#!/usr/bin/python3
"""Scores the quality corpus: the masks and backgrounds that run_elements.sh (GStreamer elements)
or seg_run (the libraries) dumped, OpenCV's MOG2 and KNN on the same decoded frames, and the plain
running median background. Metrics: tests/quality/qualitylib.py (CDnet F, precision, recall,
shadow FPR; background MAE; frames to recover after a cut).

Usage: /usr/bin/python3 tests/quality/score.py CORPUS [RESULTS] [--split all|train|val]
           [--configs a,b] [--opencv] [--json FILE] [--markdown FILE]

RESULTS/<config>/<sequence>.mask.{xz,gz} and .bg.{xz,gz} or .bgyd.{xz,gz} (backgrounds: 4:2:0
frames, or luma deltas from bg_luma_delta.py) are scored for every config directory (or those
named). --opencv adds MOG2 and KNN: OpenCV's defaults, a small grid (history x threshold x
detectShadows, 3x3 median on the mask or not) with the point of best mean F on the training sequences applied to all
("train-tuned"), and the best point of each sequence ("oracle", as issue 12's table; with
--grid-split train only the training sequences run the grid, and have an oracle row); shadow pixels
(127) count as background. Needs Debian's python3-opencv for --opencv.
"""
import argparse
import itertools
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qualitylib as ql  # noqa: E402

# detectShadows: OpenCV's shadow label (127) counts as background either way; with it off, shadow
# pixels are foreground (255) and the model also learns them differently.
MOG2_GRID = dict(history=[100, 300, 500], varThreshold=[9, 16, 25, 49], detectShadows=[True, False])
KNN_GRID = dict(history=[100, 300, 500], dist2Threshold=[200, 400, 800, 1600], detectShadows=[True, False])
GRID_MAX_PIXELS = 500 * 400  # larger sequences get the defaults and the train-tuned point only


def opencv_rows(corpus, metas, grid_too=True, grid_split="all"):
    """grid_split: the split whose sequences run the whole grid ("train": only the training ones,
    enough to choose the train-tuned point; the oracle rows then cover those alone)."""
    import cv2

    def run(make, frames, median):
        sub = make()
        out = []
        for f in frames:
            m = sub.apply(f)
            out.append(m == 255)
        masks = np.array(out)
        meds = np.array([cv2.medianBlur(m.astype(np.uint8) * 255, 3) > 0 for m in masks]) if median else None
        return masks, meds

    rows = {}  # method -> name -> metrics
    grid_scores = {}  # (method, point) -> name -> metrics
    for meta in metas:
        name = meta["name"]
        labels, _ = ql.load_truth(corpus, name)
        frames = [cv2.cvtColor(f, cv2.COLOR_YUV2BGR_I420) for f in ql.load_i420(corpus, meta)]
        big = (meta["width"] * meta["height"] > GRID_MAX_PIXELS or not grid_too or
               grid_split not in ("all", meta["split"]))
        for method, ctor, grid in (("MOG2", cv2.createBackgroundSubtractorMOG2, MOG2_GRID),
                                   ("KNN", cv2.createBackgroundSubtractorKNN, KNN_GRID)):
            masks, _ = run(ctor, frames, False)
            rows.setdefault(method + " default", {})[name] = ql.score_masks(masks, labels, meta)
            if big:
                continue
            for values in itertools.product(*grid.values()):
                kw = dict(zip(grid.keys(), values))
                plain, med = run(lambda: ctor(**kw), frames, True)
                for median, m in ((False, plain), (True, med)):
                    key = (method, json.dumps(dict(kw, median=median), sort_keys=True))
                    grid_scores.setdefault(key, {})[name] = ql.score_masks(m, labels, meta)
        print("opencv: %s done" % name, file=sys.stderr)
    # Train-tuned: the grid point with the best mean F over the training sequences.
    for method, ctor in (("MOG2", cv2.createBackgroundSubtractorMOG2), ("KNN", cv2.createBackgroundSubtractorKNN)):
        pts = [(k, v) for k, v in grid_scores.items() if k[0] == method]
        train = [m["name"] for m in metas if m["split"] == "train"]

        def train_mean(v):
            fs = [v[n]["F"] for n in train if n in v]
            return sum(fs) / len(fs) if fs else -1

        if pts:
            best_key, best = max(pts, key=lambda kv: train_mean(kv[1]))
            params = json.loads(best_key[1])
            label = "%s train-tuned" % method
            rows[label] = dict(best)
            rows[label]["_params"] = params
            for meta in metas:  # sequences outside the grid (large): run the chosen point
                if meta["name"] not in best and grid_too:
                    labels, _ = ql.load_truth(corpus, meta["name"])
                    frames = [cv2.cvtColor(f, cv2.COLOR_YUV2BGR_I420) for f in ql.load_i420(corpus, meta)]
                    kw = {k: v for k, v in params.items() if k != "median"}
                    plain, med = run(lambda: ctor(**kw), frames, params["median"])
                    rows[label][meta["name"]] = ql.score_masks(med if params["median"] else plain, labels, meta)
            oracle = {}
            for meta in metas:
                cands = [(v[meta["name"]]["F"], k, v[meta["name"]]) for k, v in pts if meta["name"] in v]
                if cands:
                    f, k, met = max(cands, key=lambda c: c[0])
                    oracle[meta["name"]] = dict(met, params=json.loads(k[1]))
            rows["%s oracle" % method] = oracle
    return rows


def element_rows(corpus, results, metas, configs):
    rows = {}
    for cfg in sorted(os.listdir(results)):
        d = os.path.join(results, cfg)
        if not os.path.isdir(d) or (configs and cfg not in configs):
            continue
        for meta in metas:
            name = meta["name"]
            mask_p = ql.find_dump(d, name, "mask")
            bg_p = ql.find_dump(d, name, "bgyd") or ql.find_dump(d, name, "bg")
            if not (mask_p or bg_p):
                continue
            labels, bg_y = ql.load_truth(corpus, name)
            try:
                if mask_p:
                    rows.setdefault(cfg, {})[name] = ql.score_masks(ql.load_masks(mask_p, meta), labels, meta)
                if bg_p:
                    mae = ql.background_mae(ql.load_background_y(bg_p, meta), bg_y, labels, meta)
                    rows.setdefault(cfg, {}).setdefault(name, {})["mae"] = mae
            except (ValueError, EOFError, OSError) as e:  # a dump still being written, or broken
                print("score: %s/%s skipped: %s" % (cfg, name, e), file=sys.stderr)
    return rows


def median_baseline(corpus, metas, window=25):
    out = {}
    for meta in metas:
        labels, bg_y = ql.load_truth(corpus, meta["name"])
        frames = ql.load_i420(corpus, meta)[:, :meta["height"]]
        out[meta["name"]] = dict(mae=ql.background_mae(ql.running_median_y(frames, window), bg_y, labels, meta))
    return out


def fmt(v, nd=3):
    return "-" if v is None else ("%.*f" % (nd, v))


def report(rows, metas, out):
    names = [m["name"] for m in metas]
    split = {m["name"]: m["split"] for m in metas}
    lines = ["| method | " + " | ".join("%s (%s)" % (n, split[n]) for n in names) +
             " | mean train | mean val | mean all |",
             "| --- |" + " --- |" * (len(names) + 3)]
    for method, per in rows.items():
        if not any(isinstance(per.get(n), dict) and "F" in per[n] for n in names):
            continue
        cells, means = [], {"train": [], "val": [], "all": []}
        for n in names:
            m = per.get(n)
            if not m or "F" not in m:
                cells.append("-")
                continue
            extra = ""
            if m.get("shadow_fpr") is not None:
                extra += " s%.2f" % m["shadow_fpr"]
            if "recovery" in m:
                extra += " r%s" % m["recovery"]
            cells.append("%.3f (P%.2f R%.2f%s)" % (m["F"], m["precision"], m["recall"], extra))
            means[split[n]].append(m["F"])
            means["all"].append(m["F"])
        mean = [fmt(sum(v) / len(v)) if v else "-" for v in (means["train"], means["val"], means["all"])]
        lines.append("| %s | %s | %s |" % (method, " | ".join(cells), " | ".join(mean)))
    maes = [(method, per) for method, per in rows.items() if any("mae" in (per.get(n) or {}) for n in names)]
    if maes:
        lines += ["", "| background MAE (levels) | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
        for method, per in maes:
            lines.append("| %s | %s |" % (method, " | ".join(fmt((per.get(n) or {}).get("mae"), 2) for n in names)))
    text = "\n".join(lines)
    print(text)
    if out:
        open(out, "w").write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("results", nargs="?")
    ap.add_argument("--split", default="all", choices=["all", "train", "val"])
    ap.add_argument("--only", default="")
    ap.add_argument("--configs", default="")
    ap.add_argument("--opencv", action="store_true")
    ap.add_argument("--opencv-defaults", action="store_true", help="OpenCV's defaults only (no grid)")
    ap.add_argument("--grid-split", default="all", choices=["all", "train"],
                    help="sequences that run OpenCV's whole grid (train: enough for the train-tuned point)")
    ap.add_argument("--median-baseline", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    metas = ql.sequences(a.corpus, a.split)
    if a.only:
        metas = [m for m in metas if m["name"] in a.only.split(",")]
    rows = {}
    if a.results:
        rows.update(element_rows(a.corpus, a.results, metas, set(filter(None, a.configs.split(",")))))
    if a.median_baseline:
        rows["running median 25"] = median_baseline(a.corpus, metas)
    if a.opencv or a.opencv_defaults:
        rows.update(opencv_rows(a.corpus, metas, grid_too=not a.opencv_defaults, grid_split=a.grid_split))
    report(rows, metas, a.markdown)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1, default=str)


if __name__ == "__main__":
    main()
