#!/usr/bin/python3
"""cvis-action train and eval on a tiny generated dataset (TAP).

Usage: test_cvis_action_learn.py CVIS_ACTION_EXE GEN_ACTIONS_EXE
Renders 3 subjects x 6 actions x 1 scenario of 40 frames at 96x72 with gen_actions (tests/actiongen),
then: eval prints a 6x6 confusion matrix whose cells add up to the 18 clips and ends with the
line "accuracy: N/18 (P%)"; train writes a dictionary that inspect reads back with the six labels,
with --classifier ridge a dictionary of every candidate, version 4 with --ridge-features class-mean,
3 with distance, by default the kind that wins leave-one-subject-out on the training subjects
(--hold-out S: the other subjects' candidates); eval --test classifies another folder's clips;
a second eval with the point cache gives the same output; an eval that reads the distances file of
the first gives its output again, one with --classifier knn and one with --classifier ridge their
own accuracy lines; --clip-list (the clips' names in a file, no folder) gives the same outputs from
the distances file alone, also from a table written without the candidates' clips; bad command
lines and a folder without clips fail with one line on stderr. Accuracy itself is measured on the full generated set (README),
not here: 3 subjects are too few for a meaningful number.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXE, GEN = sys.argv[1], sys.argv[2]
# Cross builds run the programs through Meson's exe_wrapper (e.g. qemu-aarch64).
WRAPPER = os.environ.get("CVIS_EXE_WRAPPER", "").split()
RESULTS = []
TMP = tempfile.mkdtemp(prefix="cvis-action-learn-")
ACTIONS = ["boxing", "handclapping", "handwaving", "jogging", "running", "walking"]


def case(name, ok, diag=""):
    RESULTS.append(ok)
    print(("ok" if ok else "not ok") + " %d - %s" % (len(RESULTS), name))
    if not ok and diag:
        for line in str(diag).splitlines()[-20:]:
            print("# " + line)
    sys.stdout.flush()
    return ok


def run(*args):
    p = subprocess.run(WRAPPER + [str(a) for a in args], capture_output=True, text=True,
                       timeout=900)
    return p.returncode, p.stdout, p.stderr


def main():
    data = os.path.join(TMP, "data")
    rc, out, err = run(GEN, data, "--subjects", 3, "--scenarios", 1, "--frames", 40, "--size",
                       "96x72", "--jobs", 2)
    names = sorted(os.listdir(data)) if os.path.isdir(data) else []
    case("gen_actions writes the KTH layout", rc == 0 and names == ACTIONS and all(
        os.path.isfile(os.path.join(data, a, "person%02d_%s_d1_uncomp.avi" % (p, a)))
        for a in ACTIONS for p in (1, 2, 3)), out + err)

    common = ["--backend", "cpu", "--threads", 2, "--model-frames", 12, "--block-frames", 30,
              "--overlap", 10, "--prototypes", 2]
    cache = os.path.join(TMP, "cache")
    dists = os.path.join(TMP, "distances.bin")
    rc, out, err = run(EXE, "eval", data, "--cache", cache, "--distances", dists, *common)
    lines = out.strip().split("\n")
    m = re.fullmatch(r"accuracy: (\d+)/(\d+) \((\d+\.\d)%\)", lines[-1]) if lines else None
    case("eval ends with the accuracy line", rc == 0 and m and m.group(2) == "18", out + err)
    # Matrix rows: a class name then counts (the header row names the classes, abbreviated).
    rows = [l for l in lines if l.split() and l.split()[0] in ACTIONS
            and all(v.isdigit() for v in l.split()[1:])]
    cells = [[int(v) for v in r.split()[1:]] for r in rows]
    ok = len(cells) == 6 and all(len(r) == 7 and sum(r) == 3 for r in cells)
    if ok and m:
        ok = sum(cells[i][i] for i in range(6)) == int(m.group(1))
        ok = ok and abs(float(m.group(3)) - 100.0 * int(m.group(1)) / 18) < 0.051
    case("confusion matrix: 3 clips per class, diagonal = correct", ok, out)

    rc2, out2, err2 = run(EXE, "eval", data, "--cache", cache, *common)
    case("eval from the point cache gives the same output", rc2 == 0 and out2 == out, out2 + err2)

    rc3, out3, err3 = run(EXE, "eval", data, "--cache", cache, "--distances", dists, *common)
    case("eval from the distances file gives the same output without matching",
         rc3 == 0 and out3 == out and "distances read" in err3 and "matched" not in err3,
         out3 + err3)
    rc4, out4, err4 = run(EXE, "eval", data, "--cache", cache, "--distances", dists,
                          "--classifier", "knn", "--verbose", *common)
    m4 = re.search(r"accuracy: (\d+)/18 \(", out4)
    folds = re.findall(r"subject \d\d: \d+/6 \(k-nearest class mean, k = (\d+), \d+ candidates\)",
                       out4)
    case("eval --classifier knn: every fold chooses k, the accuracy line",
         rc4 == 0 and m4 is not None and len(folds) == 3 and "distances read" in err4,
         out4 + err4)

    rc5, out5, err5 = run(EXE, "eval", data, "--cache", cache, "--distances", dists,
                          "--classifier", "ridge", "--verbose", *common)
    m5 = re.search(r"accuracy: (\d+)/18 \(", out5)
    mc = re.search(r"18 clips, \d+ points, (\d+) candidate models", err)
    n_cands = int(mc.group(1)) if mc else -1
    # Each fold's features: the candidates of the two other subjects.
    per_fold = [n for n in re.findall(r"\(ridge, alpha [0-9.]+, (\d+) candidates\)", out5)]
    folds = re.findall(r"subject \d\d: \d+/6 \(ridge, alpha ([0-9.]+), \d+ candidates\)", out5)
    case("eval --classifier ridge: every fold chooses alpha among its own candidates, the "
         "accuracy line",
         rc5 == 0 and m5 is not None and len(folds) == 3 and n_cands > 0 and
         sum(int(n) for n in per_fold) == 2 * n_cands and
         all(a in ("0.1", "0.3", "1", "3", "10") for a in folds) and "distances read" in err5,
         out5 + err5)
    # --ridge-features auto (the default): each fold picks the kind that wins leave-one-subject-out
    # on its two training subjects (12 clips; ties: class-mean).
    inner = re.findall(r"\) features (class-mean|distance) \(inner leave-one-subject-out: "
                       r"distance (\d+), class-mean (\d+)\)", out5)
    case("eval --ridge-features auto: every fold names its features, the winner of its inner "
         "leave-one-subject-out",
         len(inner) == 3 and
         all((f == "distance") == (int(d) > int(m)) and int(d) <= 12 and int(m) <= 12
             for f, d, m in inner), out5)
    rc5b, out5b, err5b = run(EXE, "eval", data, "--cache", cache, "--distances", dists,
                             "--classifier", "ridge", "--ridge-features", "class-mean",
                             "--verbose", *common)
    fixed = re.findall(r"\) features (class-mean|distance)\n", out5b)
    case("eval --ridge-features class-mean: no inner choice, every fold class-mean",
         rc5b == 0 and fixed == ["class-mean"] * 3 and "inner" not in out5b, out5b + err5b)

    # --clip-list: the same evals from the distances file and the clips' names alone (listed as
    # gen_actions' callers list them, relative to the folder), nothing decoded.
    listing = os.path.join(TMP, "clips.txt")
    with open(listing, "w") as f:
        for a in reversed(ACTIONS):
            for name in sorted(os.listdir(os.path.join(data, a))):
                f.write("./%s/%s\n" % (a, name))
    rc6, out6, err6 = run(EXE, "eval", "--clip-list", listing, "--distances", dists, *common)
    case("eval --clip-list gives the folder's output without decoding or matching",
         rc6 == 0 and out6 == out and "distances read" in err6 and "points of" not in err6
         and "matched" not in err6, out6 + err6)
    rc7, out7, err7 = run(EXE, "eval", "--clip-list", listing, "--distances", dists,
                          "--classifier", "ridge", "--verbose", *common)
    case("eval --clip-list --classifier ridge gives the folder's output", rc7 == 0 and out7 == out5,
         out7 + err7)
    # A table as written before the candidates' clips were recorded (the bytes after the table cut
    # off): read when every clip gave its windows (then the count is clips x windows, in clip
    # order), refused otherwise.
    def truncated(path, cands):
        with open(path, "rb") as f:
            raw = f.read()
        out_path = path + ".old"
        with open(out_path, "wb") as f:
            f.write(raw[:raw.index(b"\n") + 1 + 16 + 8 * 18 * max(cands, 0)])
        return out_path
    dists1 = os.path.join(TMP, "distances-1.bin")
    one = [*common, "--windows", 1, "--model-frames", 20]  # 20 frames: every clip has a window
    rc8, out8, err8 = run(EXE, "eval", data, "--cache", cache, "--distances", dists1, *one)
    m8 = re.search(r"18 clips, \d+ points, (\d+) candidate models", err8)
    rc8b, out8b, err8b = run(EXE, "eval", "--clip-list", listing, "--distances",
                             truncated(dists1, 18), *one)
    case("a table without the candidates' clips, one per clip: read",
         rc8 == 0 and m8 and m8.group(1) == "18" and rc8b == 0 and out8b == out8,
         out8 + err8 + out8b + err8b)
    old = truncated(dists, n_cands)
    rc8c, out8c, err8c = run(EXE, "eval", "--clip-list", listing, "--distances", old, *common)
    case("a table without the candidates' clips, fewer than 2 per clip: refused",
         (rc8c == 0 and out8c == out) if n_cands == 36 else (rc8c == 1 and "no table" in err8c),
         "%d candidates\n" % n_cands + out8c + err8c)
    rc9, out9, err9 = run(EXE, "eval", "--clip-list", listing, "--distances", old, *common,
                          "--windows", 3)
    case("--clip-list with other settings than the table's: exit 1, one line",
         rc9 == 1 and len(err9.strip().split("\n")) == 1 and "no table" in err9, err9)

    dic = os.path.join(TMP, "dict.bin")
    rc, out, err = run(EXE, "train", data, "-o", dic, "--cache", cache, *common)
    case("train writes a dictionary", rc == 0 and os.path.isfile(dic), out + err)
    rc, out, err = run(EXE, "inspect", dic)
    labels = set(re.findall(r"\b(" + "|".join(ACTIONS) + r")\b", out))
    case("inspect reads it: every class has a prototype", rc == 0 and labels == set(ACTIONS),
         out + err)

    # A ridge dictionary (version 4: over the class means): every candidate a model, the
    # classifier over all of them.
    ridge = os.path.join(TMP, "ridge.bin")
    rc, out, err = run(EXE, "train", data, "-o", ridge, "--cache", cache, "--distances", dists,
                       "--classifier", "ridge", "--ridge-features", "class-mean", *common)
    rc2, out2, err2 = run(EXE, "inspect", "--json", ridge)
    j = json.loads(out2) if rc2 == 0 else {}
    c = j.get("classifier", {})
    protos = c.get("prototypes", [])
    case("train --classifier ridge: version 4, every candidate a model, six classes, prototypes "
         "a sorted subset", rc == 0 and "matched" not in err and j.get("version") == 4 and
         c.get("kind") == "ridge" and c.get("features") == "class-mean" and
         c.get("distance") == "appearance" and
         len(j.get("models", [])) == n_cands and sorted(c.get("classes", [])) == ACTIONS and
         0 < len(protos) < n_cands and protos == sorted(set(protos)) and
         all(0 <= p < n_cands for p in protos), out + err + out2 + err2)
    v3 = os.path.join(TMP, "ridge-v3.bin")
    rc, out, err = run(EXE, "train", data, "-o", v3, "--cache", cache, "--distances", dists,
                       "--classifier", "ridge", "--ridge-features", "distance", *common)
    rc2, out2, err2 = run(EXE, "inspect", "--json", v3)
    j = json.loads(out2) if rc2 == 0 else {}
    case("train --ridge-features distance: version 3, a weight per model",
         rc == 0 and j.get("version") == 3 and
         j.get("classifier", {}).get("features") == "distance", out + err + out2 + err2)
    auto = os.path.join(TMP, "ridge-auto.bin")
    rc, out, err = run(EXE, "train", data, "-o", auto, "--cache", cache, "--distances", dists,
                       "--classifier", "ridge", *common)
    rc2, out2, err2 = run(EXE, "inspect", "--json", auto)
    j = json.loads(out2) if rc2 == 0 else {}
    said = re.search(r"features (class-mean|distance)\)", out)
    inner = re.search(r"leave-one-subject-out on the 18 training clips: distance (\d+), "
                      r"class-mean (\d+) correct", out)
    kind = j.get("classifier", {}).get("features")
    case("train --classifier ridge (features auto): the kind that wins leave-one-subject-out on "
         "the training clips, written as that kind's version",
         rc == 0 and said is not None and inner is not None and kind == said.group(1) and
         (kind == "distance") == (int(inner.group(1)) > int(inner.group(2))) and
         j.get("version") == (3 if kind == "distance" else 4), out + err + out2 + err2)
    held = os.path.join(TMP, "ridge-2.bin")
    rc, out, err = run(EXE, "train", data, "-o", held, "--cache", cache, "--distances", dists,
                       "--classifier", "ridge", "--hold-out", 2, *common)
    rc2, out2, err2 = run(EXE, "inspect", "--json", held)
    j2 = json.loads(out2) if rc2 == 0 else {}
    sources = [m["source"] for m in j2.get("models", [])]
    own = [m["source"] for m in j.get("models", []) if "person02" in m["source"]]
    case("train --hold-out 2: the models are the other subjects' candidates, from the same table",
         rc == 0 and "matched" not in err and len(own) > 0 and
         len(sources) == n_cands - len(own) and not any("person02" in s for s in sources) and
         j2.get("classifier", {}).get("kind") == "ridge", out + err + out2 + err2)

    rc, out, err = run(EXE, "train", data, "-o", held, "--cache", cache, "--distances", dists,
                       "--classifier", "ridge", "--hold-out", 7, *common)
    case("train --hold-out of a subject without clips: exit 1, the reason last on stderr",
         rc == 1 and err.strip().split("\n")[-1] ==
         "cvis-action: --hold-out 7: no clip of that subject", err)

    # eval --test: trained on every subject of one folder, tested on another's clips (here the
    # same clips under another name: the test table is the training table's rows).
    test_dists = os.path.join(TMP, "test-distances.bin")
    rc, out, err = run(EXE, "eval", data, "--cache", cache, "--distances", dists, "--test", data,
                       "--test-cache", cache, "--test-distances", test_dists, "--classifier",
                       "ridge", *common)
    rc2, out2, err2 = run(EXE, "eval", data, "--cache", cache, "--distances", dists, "--test",
                          data, "--test-cache", cache, "--test-distances", test_dists,
                          "--classifier", "ridge", *common)
    case("eval --test: the accuracy line over the test clips; its table read back",
         rc == 0 and re.search(r"^accuracy: \d+/18 \(", out, re.M) and "matched 18/18" in err and
         rc2 == 0 and out2 == out and "test distances read" in err2 and "matched" not in err2,
         out + err + out2 + err2)

    empty = os.path.join(TMP, "empty")
    os.makedirs(empty)
    for name, args, want in [
        ("eval of a folder without clips", ["eval", empty], 1),
        ("eval of a missing folder", ["eval", os.path.join(TMP, "nope")], 1),
        ("train without -o", ["train", data], 2),
        ("train --classifier knn", ["train", data, "-o", dic, "--classifier", "knn"], 2),
        ("bad classifier", ["eval", data, "--classifier", "svm"], 2),
        ("bad ridge features", ["eval", data, "--ridge-features", "rank"], 2),
        ("eval --hold-out", ["eval", data, "--hold-out", 2], 2),
        ("--clip-list without --distances", ["eval", "--clip-list", listing], 2),
        ("--clip-list and a folder", ["eval", data, "--clip-list", listing, "--distances", dists],
         2),
        ("--clip-list of a missing file", ["eval", "--clip-list", os.path.join(TMP, "nope.txt"),
                                           "--distances", dists], 1),
        ("unknown option", ["eval", data, "--bogus", "1"], 2),
        ("bad number", ["eval", data, "--sigma", "x"], 2),
    ]:
        rc, out, err = run(EXE, *args)
        lines = err.strip("\n").split("\n")
        case(name + ": one line on stderr, exit %d" % want,
             rc == want and len(lines) == 1 and lines[0].startswith("cvis-action: "), err)

    print("1..%d" % len(RESULTS))
    shutil.rmtree(TMP, ignore_errors=True)
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
