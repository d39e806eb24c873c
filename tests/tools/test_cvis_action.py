#!/usr/bin/python3
"""cvis-action command-line tests (TAP): good and bad inputs.

Usage: test_cvis_action.py CVIS_ACTION_EXE
The dictionaries and scene files are written here from the format description
(cuda/actionlearn/FORMAT.md), independently of the library's writer, and the energies the tool
reports are checked against the paper's energy computed here in double precision (by brute force
over every assignment on a small problem). CVIS_REQUIRE_GPU=1 (GPU host): --backend cuda must work
and print exactly what --backend cpu prints.
"""
import itertools
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

EXE = sys.argv[1]
# Cross builds run the tool through Meson's exe_wrapper (e.g. qemu-aarch64).
WRAPPER = os.environ.get("CVIS_EXE_WRAPPER", "").split()
RESULTS = []
TMP = tempfile.mkdtemp(prefix="cvis-action-test-")


def case(name, ok, diag=""):
    RESULTS.append(ok)
    print(("ok" if ok else "not ok") + " %d - %s" % (len(RESULTS), name))
    if not ok and diag:
        for line in str(diag).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()
    return ok


def run(*args):
    p = subprocess.run(WRAPPER + [EXE] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def one_line_error(rc, err, want_rc=1, word=""):
    lines = err.strip("\n").split("\n")
    return (rc == want_rc and len(lines) == 1 and lines[0].startswith("cvis-action: ")
            and word in lines[0])


# --- the formats, written from FORMAT.md -------------------------------------------------------

def dictionary_bytes(models, dim, lambda1=0.6, lambda2=0.2, lambda3=5.0, T=10, causality=1,
                     dummies=True, dummy_cost=1.0, version=1):
    body = b""
    for label, source, nodes in models:
        lb, sb = label.encode(), source.encode()
        body += struct.pack("<I", len(lb)) + lb + struct.pack("<I", len(sb)) + sb
        body += struct.pack("<I", len(nodes))
        for f, x, y, _ in nodes:
            body += struct.pack("<iff", f, x, y)
        for _, _, _, d in nodes:
            body += struct.pack("<%df" % dim, *d)
    size = 80 + len(body)
    head = b"CVISACTD" + struct.pack("<IIQI", version, 80, size, 0)
    head += struct.pack("<IIIiI", dim, len(models), 1 if dummies else 0, T, causality)
    head += struct.pack("<dddd", lambda1, lambda2, lambda3, dummy_cost)
    data = bytearray(head + body)
    struct.pack_into("<I", data, 24, zlib.crc32(bytes(data)) & 0xFFFFFFFF)
    return bytes(data)


def scene_text(blocks, dim):
    out = ["# written by test_cvis_action.py", "cvis-action-scene 1", "dim %d" % dim]
    for i, nodes in enumerate(blocks):
        if i:
            out.append("block")
        for f, x, y, d in nodes:
            out.append(" ".join([str(f), repr(x), repr(y)] + [repr(v) for v in d]))
    return "\n".join(out) + "\n"


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def random_nodes(rng, n, dim, first_frame, model):
    nodes, f = [], first_frame
    for i in range(n):
        if i:
            f += rng.randint(1 if model else 0, 2)
        nodes.append((f, f32(rng.uniform(0, 160)), f32(rng.uniform(0, 160)),
                      [f32(rng.random()) for _ in range(dim)]))
    return nodes


# --- the paper's energy in double (README.md of cuda/actionmatch) -----------------------------

def wrap(a):
    if a > math.pi:
        return a - 2 * math.pi
    if a <= -math.pi:
        return a + 2 * math.pi
    return a


def ray(p, q):
    return math.atan2(q[2] - p[2], q[1] - p[1])


def energy(model, scene, z, P):
    """None when z violates a constraint, else E(z) (eq. 1-6)."""
    e = 0.0
    for i, zi in enumerate(z):
        if zi < 0:
            e += P["lambda1"] * P["dummy_cost"]
        else:
            e += P["lambda1"] * math.sqrt(sum((a - b) ** 2 for a, b in zip(model[i][3], scene[zi][3])))
    for r in range(2, len(z)):
        real = [scene[z[k]][0] for k in (r - 2, r - 1, r) if z[k] >= 0]
        for k in range(1, len(real)):
            if P["causality"] == 1 and real[k] < real[k - 1]:
                return None
            if P["causality"] == 2 and real[k] <= real[k - 1]:
                return None
        if P["T"] > 0 and real and max(real) - min(real) >= P["T"]:
            return None
        if min(z[r - 2:r + 1]) < 0:
            continue
        a, b, c = scene[z[r]], scene[z[r - 1]], scene[z[r - 2]]
        i, j, k = model[r], model[r - 1], model[r - 2]
        dt = abs((i[0] - j[0]) - (a[0] - b[0])) + abs((j[0] - k[0]) - (b[0] - c[0]))
        e1 = wrap(wrap(ray(j, k) - ray(j, i)) - wrap(ray(b, c) - ray(b, a)))
        e2 = wrap(wrap(ray(i, k) - ray(i, j)) - wrap(ray(a, c) - ray(a, b)))
        e += P["lambda2"] * (dt + P["lambda3"] * math.sqrt(e1 * e1 + e2 * e2))
    return e


def main():
    rng = random.Random(7)
    dim = 5
    models = [("walking", "person01_walking_d1 frames 0-9", random_nodes(rng, 4, dim, 0, True)),
              ("boxing", "", random_nodes(rng, 3, dim, 3, True)),
              ("hand \"waving\"", "src", random_nodes(rng, 5, dim, 1, True))]
    P = dict(lambda1=0.6, lambda2=0.2, lambda3=5.0, T=4, causality=1, dummies=True, dummy_cost=0.8)
    dict_path = write("dict.bin", dictionary_bytes(models, dim, T=4, dummy_cost=0.8))

    # inspect
    rc, out, err = run("inspect", dict_path)
    case("inspect: text", rc == 0 and "3 models" in out and "boxing" in out and "T 4" in out
         and "person01_walking_d1" in out, out + err)
    rc, out, err = run("inspect", "--json", dict_path)
    try:
        j = json.loads(out)
        ok = (rc == 0 and j["dim"] == dim and [m["label"] for m in j["models"]] ==
              [m[0] for m in models] and j["params"]["T"] == 4 and j["params"]["dummy_cost"] == 0.8
              and j["params"]["causality"] == "non-decreasing" and j["models"][2]["nodes"] == 5)
    except ValueError as e:
        ok, out = False, out + str(e)
    case("inspect: json", ok, out + err)

    # match: a small scene, checked against brute force over all assignments in double, with the
    # dummy (W_d 0.8) and without (then every hyperedge pays its distortion), strict causality.
    scene = random_nodes(rng, 6, dim, 0, False)
    scene_path = write("scene.txt", scene_text([scene], dim))
    P_strict = dict(P, dummies=False, causality=2, T=5, lambda3=2.5)
    strict_path = write("strict.bin", dictionary_bytes(models, dim, T=5, causality=2, dummies=False,
                                                       lambda3=2.5, dummy_cost=0.8))
    spread = random_nodes(rng, 7, dim, 2, True)
    spread_path = write("spread.txt", scene_text([spread], dim))
    j = None
    for params, path, scene, spath in ((P, dict_path, scene, scene_path),
                                       (P_strict, strict_path, spread, spread_path)):
        rc, out, err = run("match", "--json", "--backend", "cpu", path, spath)
        try:
            j = json.loads(out)
            ok = rc == 0 and len(j["blocks"]) == 1 and len(j["blocks"][0]["matches"]) == 3
        except ValueError as e:
            ok, j = False, None
            out += str(e)
        case("match: json (dummies %s)" % params["dummies"], ok, out + err)
        for m, (label, _, nodes) in enumerate(models):
            r = j["blocks"][0]["matches"][m] if j else {}
            best = None
            cands = list(range(len(scene))) + ([-1] if params["dummies"] else [])
            for z in itertools.product(cands, repeat=len(nodes)):
                e = energy(nodes, scene, z, params)
                if e is not None and (best is None or e < best):
                    best = e
            tol = 2 * len(nodes) * 2.0 ** -21 * 2 + 1e-9
            if best is None:
                ok = r.get("feasible") is False
            else:
                ok = (r.get("feasible") and abs(r["energy"] - best) <= tol and
                      r["energy_fixed"] == r["appearance_fixed"] + r["distortion_fixed"] and
                      abs(energy(nodes, scene, r["assignment"], params) - r["energy"]) <= tol / 2)
                ok = ok and (params["dummies"] or r["distortion_fixed"] > 0)
            case("match: model %d (dummies %s): the brute-force optimum of the paper's energy"
                 % (m, params["dummies"]), ok, "tool %s, brute force %s" % (r, best))

    scene = random_nodes(rng, 6, dim, 0, False)
    scene_path = write("scene.txt", scene_text([scene], dim))

    # A scene holding an exact copy of model 2 (frames shifted) among clutter, two more blocks
    # (one empty): the copy is found with energy 0 and ranked first.
    copy = [(f + 50, x, y, d) for f, x, y, d in models[2][2]]
    clutter = random_nodes(rng, 12, dim, 48, False)
    block = sorted(copy + clutter, key=lambda n: n[0])
    scene_path = write("scene3.txt", scene_text([scene, block, []], dim))
    rc, out, err = run("match", "--json", "--backend=cpu", "--distance", "appearance", dict_path,
                       scene_path)
    try:
        j = json.loads(out)
        b1 = j["blocks"][1]
        r2 = b1["matches"][2]
        ok = (rc == 0 and len(j["blocks"]) == 3 and b1["best"]["model"] == 2 and
              r2["energy_fixed"] == 0 and [block[k] for k in r2["assignment"]] == copy and
              j["distance"] == "appearance" and j["stats"]["pairs"] == 9)
        empty = j["blocks"][2]["matches"][0]
        ok = ok and empty["dummies"] == 4 and empty["assignment"] == [-1] * 4
    except (ValueError, KeyError, IndexError, TypeError) as e:
        ok, out = False, out + repr(e)
    case("match: copy found, several blocks, empty block", ok, out + err)
    rc, out, err = run("match", "--backend", "cpu", dict_path, scene_path)
    case("match: text", rc == 0 and "block 2: 0 nodes" in out and "rank" in out and
         "trellis: 9 pairs" in out, out + err)

    # The CUDA backend prints what the CPU backend prints (GPU host), or fails in one line.
    rc, out_gpu, err = run("match", "--json", "--backend", "cuda", dict_path, scene_path)
    rc_cpu, out_cpu, _ = run("match", "--json", "--backend", "cpu", dict_path, scene_path)
    if os.environ.get("CVIS_REQUIRE_GPU") == "1":
        case("match: cuda equals cpu", rc == 0 and out_gpu.replace('"cuda"', '"cpu"') == out_cpu,
             err)
    else:
        case("match: cuda without a GPU fails in one line or equals cpu",
             (rc == 0 and out_gpu.replace('"cuda"', '"cpu"') == out_cpu) or
             one_line_error(rc, err), err)

    # Bad dictionaries: one line on stderr, exit status 1.
    good = dictionary_bytes(models, dim)
    bad = {
        "missing file": (os.path.join(TMP, "nope.bin"), "cannot open"),
        "bad magic": (write("magic.bin", b"XVISACTD" + good[8:]), "magic"),
        "truncated": (write("trunc.bin", good[:len(good) // 2]), "truncated"),
        "unsupported version": (write("v5.bin", dictionary_bytes(models, dim, version=5)),
                                "unsupported dictionary version 5"),
        "corrupt payload": (write("crc.bin", good[:100] + bytes([good[100] ^ 1]) + good[101:]),
                            "checksum"),
        "bad parameter": (write("lambda.bin", dictionary_bytes(models, dim, lambda1=-1)),
                          "lambda1"),
        "empty file": (write("empty.bin", b""), "empty"),
    }
    for name, (path, word) in bad.items():
        rc, out, err = run("inspect", path)
        case("inspect rejects: " + name, one_line_error(rc, err, 1, word) and out == "", err)
        rc, out, err = run("match", path, write("ok.txt", scene_text([scene], dim)))
        case("match rejects: " + name, one_line_error(rc, err, 1, word), err)

    # Bad scenes.
    lines = scene_text([scene], dim).split("\n")
    bad_scenes = {
        "missing file": (os.path.join(TMP, "none.txt"), "cannot open"),
        "no header": (write("s1.txt", "\n".join(lines[2:])), "not a cvis-action scene"),
        "unsorted frames": (write("s2.txt", scene_text([scene[::-1]], dim)), "sorted by frame"),
        "short node line": (write("s3.txt", "\n".join(lines[:4] + ["1 2 3"])), "line 5"),
        "bad number": (write("s4.txt", "\n".join(lines[:4] + [lines[4].replace(" ", " x", 1)])),
                       "line 5"),
        "wrong dim": (write("s5.txt", scene_text([[(0, 1.0, 2.0, [0.5] * 4)]], 4)), "dim 4"),
        "nan value": (write("s6.txt", "\n".join(lines[:4] + [lines[4] + " nan"]).replace(
            lines[4] + " nan", " ".join(lines[4].split()[:-1] + ["nan"]))), "finite"),
    }
    for name, (path, word) in bad_scenes.items():
        rc, out, err = run("match", dict_path, path)
        case("match rejects scene: " + name, one_line_error(rc, err, 1, word), err)

    # Command line.
    for args, word in [((), "missing command"), (("frobnicate",), "unknown command"),
                       (("inspect",), "one dictionary"), (("match", dict_path), "scene file"),
                       (("match", "--backend", "gpu", dict_path, scene_path), "backend"),
                       (("match", "--distance", "x", dict_path, scene_path), "distance"),
                       (("inspect", "--frob", dict_path), "unknown option"),
                       (("match", "--threads", "-3", dict_path, scene_path), "thread")]:
        rc, out, err = run(*args)
        case("usage error: %s" % " ".join(args), one_line_error(rc, err, 2, word), err)
    rc, out, err = run("--help")
    case("--help", rc == 0 and "inspect" in out and "match" in out, out + err)
    # Each command's own help: exit 0, its options on stdout, nothing on stderr (as cvis-cedd).
    for command, words in [("inspect", ["inspect", "--json"]),
                           ("match", ["match", "--backend", "--distance", "--threads"]),
                           ("train", ["train", "--block-frames"]), ("eval", ["eval", "--cache"])]:
        for flag in ("--help", "-h"):
            rc, out, err = run(command, flag)
            case("%s %s" % (command, flag), rc == 0 and err == "" and
                 all(w in out for w in words), out + err)

    shutil.rmtree(TMP, ignore_errors=True)
    print("1..%d" % len(RESULTS))
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
