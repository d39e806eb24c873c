#!/usr/bin/python3
"""The tracking evaluation set of docs/evaluation.md: sequences with exact ground truth from two
generators (gen_photo.py: textured photographs; gen_figure.py: rendered articulated people and
cars) over real footage from Debian packages (tests/footage/footage.py), in a development split
(choices are made on it), a second development split (dev2: the dev split's photographs and two
more real videos, other seeds, mirrored paths; choices must hold on both) and an evaluation split
(run once, at the end). The evaluation split shares no background video, no target photograph, no
occluder photograph and no seed with the others.

Failure modes, one scenario each (both splits): grow (3x in 100 frames), shrink (1/3 in 100
frames), partial (two bars sliding over half the target, a look-alike passing behind), full (a
panel hides the target; it grows while hidden and comes out larger), reenter (it leaves the frame
and comes back elsewhere at another scale), handheld2k (2048x1152, hand-held shake: tens of pixels
between frames), slow (0.25 px/frame, stopped 80 frames, then 1 px/frame; static camera), walker
(a person approaching the camera, 3x taller, a person crossing in front), stopper (a person who
walks, stops 60 frames while a person crosses in front, walks on; a look-alike behind), car (a car
driving away, 1/2.5 of its size, another car passing in front).

Usage: /usr/bin/python3 tests/tracking/hardset.py [--out DIR] [--split dev|dev2|eval|all] [--only a,b]
Default DIR: build-eval/tracking (ignored by git). Existing sequences are kept (delete to redo).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "footage"))
import footage  # noqa: E402
import compose  # noqa: E402
import gen_figure  # noqa: E402
import gen_photo  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SD = (640, 360)
N = 200


def photo(name, split, bg, tex, occ, seed, keys, **kw):
    d = dict(name=name, split=split, generator="photo", bg=bg, tex=tex, occ_tex=occ, seed=seed,
             size=SD, frames=N, keys=keys, base=(64, 48), camera=dict(pan=0.6))
    d.update(kw)
    return d


def figure(name, split, bg, pool, seed, kind, keys, others, **kw):
    d = dict(name=name, split=split, generator="figure", bg=bg, pool=pool, seed=seed, size=SD,
             frames=N, kind=kind, keys=keys, others=others, camera=dict(pan=0.3))
    d.update(kw)
    return d


def scenarios(split, bgs, texs, occ, pool, seed, mirror):
    """The ten scenarios of one split: `bgs` background videos (photo x4, handheld, slow, figure
    x3), `texs` target photographs (7), `occ` occluder photograph, `pool` clothes photographs."""
    m = -1 if mirror else 1

    def X(v):  # mirrored paths in the evaluation split
        return 1 - v if mirror else v
    s = seed
    re_scale = 2.0 if mirror else 0.45
    return [
        photo(split + "-grow", split, bgs[0], texs[0], occ, s + 1,
              [(0, X(.3), .55, 1), (40, X(.35), .5, 1), (140, X(.55), .45, 3), (199, X(.6), .5, 3)]),
        photo(split + "-shrink", split, bgs[1], texs[1], occ, s + 2,
              [(0, X(.65), .45, 1), (40, X(.6), .5, 1), (140, X(.4), .55, 1 / 3.),
               (199, X(.3), .5, 1 / 3.)], base=(96, 72)),
        photo(split + "-partial", split, bgs[2], texs[2], occ, s + 3,
              [(0, X(.25), .5, 1), (100, X(.6), .4, 1.3), (199, X(.75), .6, 1.1)],
              bars=[dict(t=(35, 66), w=.6, h=1.6, dx0=-.9 * m, dx1=0, dy=0),
                    dict(t=(120, 151), w=.6, h=1.6, dx0=.9 * m, dx1=.1 * m, dy=0)],
              distractor=(80, 110)),
        photo(split + "-full", split, bgs[3], texs[3], occ, s + 4,
              [(0, X(.2), .5, 1), (70, X(.525), .5, 1), (100, X(.525), .5, 1.6),
               (140, X(.85), .55, 1.6), (199, X(.8), .45, 1.6)],
              panels=[dict(x=X(.4) if not mirror else X(.65), y=.2, w=.25, h=.6)]),
        photo(split + "-reenter", split, bgs[0], texs[4], occ, s + 5,
              [(0, X(.3), .5, 1), (79, X(1.3), .45, 1), (120, X(-.2), .6, re_scale),
               (199, X(.5), .5, re_scale)], hidden=[(80, 120)]),
        photo(split + "-handheld2k", split, bgs[4], texs[5], occ, s + 6,
              [(0, .3, .5, 1), (30, .7, .3, 1.2), (60, .4, .7, .8), (90, .75, .6, 1.3),
               (119, .3, .4, 1)], size=(2048, 1152), frames=120, base=(192, 144), angle=0.2,
              camera=dict(pan=0.3, shake=60.0, shake_rho=0.3, margin=0.12)),
        photo(split + "-slow", split, bgs[5], texs[6], occ, s + 7,
              [(0, X(.4), .5, 1), (50, X(.4 + m * 12.5 / 640), .5, 1), (130, X(.4 + m * 12.5 / 640), .5, 1),
               (199, X(.4 + m * 82.5 / 640), .5, 1)], camera=dict(pan=0.0)),
        figure(split + "-walker", split, bgs[6], pool, s + 8, "person",
               [(0, X(.2), .55, .17), (40, X(.3), .6, .17), (140, X(.55), .95, .5), (199, X(.6), .95, .5)],
               [dict(kind="person", keys=[(90, X(-.2), .99, .55), (130, X(1.2), .99, .55)], front=True,
                     t=(90, 130))]),
        figure(split + "-stopper", split, bgs[7], pool, s + 9, "person",
               [(0, X(.15), .7, .3), (60, X(.45), .72, .3), (120, X(.45), .72, .3), (199, X(.8), .75, .32)],
               [dict(kind="person", keys=[(20, X(.9), .66, .27), (110, X(.05), .68, .27)], front=False,
                     lookalike=True, t=(20, 110)),
                dict(kind="person", keys=[(80, X(1.1), .8, .36), (110, X(-.1), .8, .36)], front=True,
                     t=(80, 110))]),
        figure(split + "-car", split, bgs[8], pool, s + 10, "car",
               [(0, X(.15), .75, .25), (199, X(.75), .6, .1)],
               [dict(kind="car", keys=[(60, X(1.3), .88, .3), (110, X(-.3), .88, .3)], front=True,
                     t=(60, 110))]),
    ]


def all_specs():
    dev = scenarios("dev", ["office", "diver", "vtest", "tree", "diver", "tree", "vtest", "vtest", "office"],
                    ["baboon", "fruits", "graf", "starry", "butterfly", "smarties", "home"], "building",
                    ["baboon", "fruits", "graf", "starry", "butterfly", "smarties"], 1000, False)
    ev = scenarios("eval", ["city", "lego", "ball", "city", "phone", "ball", "city", "ball", "lego"],
                   ["astronaut", "coffee", "chelsea", "rocket", "motorcycle", "hubble", "astronaut"], "brick",
                   ["astronaut", "coffee", "chelsea", "rocket", "motorcycle", "hubble"], 2000, True)
    dev2 = scenarios("dev2", ["box", "cup", "tree", "vtest", "box", "vtest", "cup", "office", "box"],
                     ["smarties", "home", "butterfly", "baboon", "graf", "fruits", "starry"], "building",
                     ["starry", "butterfly", "smarties", "baboon", "fruits", "graf"], 3000, True)
    return dev + ev + dev2


def make(spec, out):
    d = os.path.join(out, spec["name"])
    if os.path.isfile(os.path.join(d, "meta.json")):
        return d
    W, H = spec["size"]
    w = compose.Writer(d, W, H)
    gen = gen_photo if spec["generator"] == "photo" else gen_figure
    extra = gen.render(spec, footage, w)
    srcs = [spec["bg"]] + ([spec["tex"], spec["occ_tex"]] if spec["generator"] == "photo" else spec["pool"])
    meta = dict(spec, sources={s: footage.package(s) for s in srcs}, **extra)
    w.close(meta)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "build-eval", "tracking"))
    ap.add_argument("--split", default="all", choices=["dev", "dev2", "eval", "all"])
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    for s in all_specs():
        if a.split in ("all", s["split"]) and (not only or s["name"] in only):
            print(make(s, a.out), flush=True)


if __name__ == "__main__":
    main()
