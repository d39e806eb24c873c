#!/usr/bin/python3
"""Scores the segmentation set of make_dynamic.py with tests/quality's metrics (qualitylib: CDnet F,
precision, recall over the frames from the warm-up on, unknown pixels not scored) for every
configuration that run_elements.sh dumped, and adds per-object recall of the slow objects: the
share of an object's foreground pixels (label 255) that the mask holds, while it moves at its speed
and while it stands (its stop, or speed 0), over the scored frames.

Usage: /usr/bin/python3 tests/quality/dynamic/score_dynamic.py CORPUS RESULTS [--split dev|eval|eval2|...|eval8|hd-dev|hd-eval|all]
           [--configs a,b] [--markdown FILE] [--json FILE]
Goal (docs/evaluation.md): F >= 0.88 on every dynamic-background sequence for both elements, slow
and stopped objects keep their mask (recall near 1 in every speed class).
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import qualitylib as ql  # noqa: E402


def object_recall(masks, labels, obj, meta):
    """{speed class: recall}: classes "0" (speed 0), "stopped" (during a stop), and the speeds."""
    hit, tot = {}, {}
    for o in meta["objects"]:
        for t in range(meta["warmup"], meta["frames"]):
            if t < o["start"]:
                continue
            sel = (obj[t] == o["id"]) & (labels[t] == 255)
            n = int(np.count_nonzero(sel))
            if n == 0:
                continue
            if o["speed"] == 0:
                cls = "0"
            elif any(a <= t < b for a, b in o["stops"]):
                cls = "stopped"
            else:
                cls = "%g" % o["speed"]
            hit[cls] = hit.get(cls, 0) + int(np.count_nonzero(masks[t] & sel))
            tot[cls] = tot.get(cls, 0) + n
    return {k: hit[k] / tot[k] for k in tot}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("results")
    ap.add_argument("--split", default="all", choices=["dev", "eval", "eval2", "eval3", "eval4", "eval5", "eval6", "eval7",
                                                       "eval8", "hd-dev", "hd-eval", "all"])
    ap.add_argument("--configs", default="")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    a = ap.parse_args()
    metas = ql.sequences(a.corpus, a.split)
    configs = [c for c in sorted(os.listdir(a.results)) if os.path.isdir(os.path.join(a.results, c))
               and (not a.configs or c in a.configs.split(","))]
    res = {}
    for meta in metas:
        name = meta["name"]
        t = np.load(os.path.join(a.corpus, name, "truth.npz"))
        labels, obj = t["labels"], t["obj"]
        for cfg in configs:
            p = ql.find_dump(os.path.join(a.results, cfg), name, "mask")
            if not p:
                continue
            masks = ql.load_masks(p, meta)
            m = ql.score_masks(masks, labels, meta)
            m["objects"] = object_recall(masks, labels, obj, meta)
            res.setdefault(cfg, {})[name] = m
    classes = ["0", "0.5", "1", "2", "stopped"]
    lines = ["| sequence | config | F | precision | recall | " + " | ".join("recall @%s" % c for c in classes) + " |",
             "| --- | --- | ---: | ---: | ---: |" + " ---: |" * len(classes)]
    for meta in metas:
        for cfg in configs:
            m = res.get(cfg, {}).get(meta["name"])
            if not m:
                continue
            lines.append("| %s | %s | %.3f | %.2f | %.2f | %s |" % (
                meta["name"], cfg, m["F"], m["precision"], m["recall"],
                " | ".join("%.2f" % m["objects"][c] if c in m["objects"] else "-" for c in classes)))
    for cfg in configs:
        fs = [m["F"] for m in res.get(cfg, {}).values()]
        if fs:
            lines.append("| mean (%d sequences) | %s | %.3f | | |%s" % (len(fs), cfg, float(np.mean(fs)), " |" * len(classes)))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text + "\n")
    if a.json:
        json.dump(res, open(a.json, "w"), indent=1, default=str)


if __name__ == "__main__":
    main()
