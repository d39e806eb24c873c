#!/usr/bin/python3
"""File fuzzer (TAP): random and truncated action dictionaries and scene-graph files through
cvis-action, random and truncated CEDD indexes through cvis-cedd and the cudacedd element
(gst-launch-1.0), random and truncated images through cvis-cedd describe. Each input must give exit status 0 or 1 (never a crash, a sanitizer report or
a hang) and, on failure, one clear line on stderr ("cvis-action: ..." / "cvis-cedd: ...").

Usage: fuzz_files.py CVIS_ACTION CVIS_CEDD TOOLS_TEST_DIR TESTDATA_DIR [SEEDS] [FIRST]
TOOLS_TEST_DIR: tests/tools (test_cvis_action.py writes valid files from the format's
description; they are the starting points of the mutations). One TAP result per seed and kind.
"""
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile

ACTION, CEDD, TOOLS, DATA = sys.argv[1:5]
SEEDS = int(sys.argv[5]) if len(sys.argv) > 5 else 50
FIRST = int(sys.argv[6]) if len(sys.argv) > 6 else 1
WRAPPER = os.environ.get("CVIS_EXE_WRAPPER", "").split()
TIMEOUT = 120
RESULTS = []
TMP = tempfile.mkdtemp(prefix="cvis-fuzz-files-")
# Exit statuses the sanitizers use in scripts/fuzz.sh (ASAN_OPTIONS, UBSAN_OPTIONS), and their
# report headers: either is a failure even when the status is 0 or 1.
SANITIZER_WORDS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def case(name, ok, diag=""):
    RESULTS.append(bool(ok))
    print(("ok" if ok else "not ok") + " %d - %s" % (len(RESULTS), name))
    if not ok and diag:
        for line in str(diag).splitlines()[:40]:
            print("# " + line)
    sys.stdout.flush()


def run(args, prefix):
    try:
        p = subprocess.run(WRAPPER + args, capture_output=True, text=True, timeout=TIMEOUT,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return False, "hang: %s" % " ".join(args)
    out = p.stdout + p.stderr
    if any(w in out for w in SANITIZER_WORDS):
        return False, out
    if p.returncode not in (0, 1):
        return False, "exit status %d: %s\n%s" % (p.returncode, " ".join(args), out)
    if p.returncode == 1:
        # One line of the tool's; a decoding library may print its own (libpng does).
        lines = [l for l in p.stderr.split("\n") if l.startswith(prefix)]
        if len(lines) != 1:
            return False, "unclear failure: %s\n%s" % (" ".join(args), p.stderr)
        if lines[0].endswith("Internal data stream error"):
            return False, "a generic message instead of the reason: %s\n%s" % (" ".join(args),
                                                                             p.stderr)
    return True, ""


def launch_env():
    """gst-launch-1.0 loading a sanitized plugin: the runtimes first (scripts/fuzz.sh), leaks at
    the tool's exit not checked."""
    env = dict(os.environ)
    if env.get("CVIS_FUZZ_PRELOAD"):
        env["LD_PRELOAD"] = env["CVIS_FUZZ_PRELOAD"]
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return env


def mutate(rng, data):
    """A random mutation of `data`: truncation, bit flips, byte runs, splices."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        k = rng.randint(0, 5)
        if k == 0 and data:
            del data[rng.randint(0, len(data) - 1):]
        elif k == 1 and data:
            for _ in range(rng.randint(1, 8)):
                i = rng.randint(0, len(data) - 1)
                data[i] ^= 1 << rng.randint(0, 7)
        elif k == 2 and data:
            i = rng.randint(0, len(data) - 1)
            data[i:i + rng.randint(1, 8)] = bytes(rng.choice([0, 0xff, 0x7f, 0x80]) for _ in
                                                  range(rng.randint(1, 8)))
        elif k == 3:
            i = rng.randint(0, len(data))
            data[i:i] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 64)))
        elif k == 4 and len(data) > 8:
            i, j = sorted(rng.sample(range(len(data)), 2))
            data[i:i] = data[i:j]
        else:
            data = bytearray(rng.randint(0, 255) for _ in range(rng.randint(0, 256)))
    return bytes(data)


def mutate_text(rng, text):
    """Scene files are text: also numbers replaced by extreme or malformed ones."""
    words = text.split(" ")
    for _ in range(rng.randint(1, 6)):
        i = rng.randint(0, len(words) - 1)
        words[i] = rng.choice(["nan", "inf", "-1", "0", "1e308", "-2147483649", "4294967296",
                               "x", "", "\n", "1.5", "99999999"])
    return " ".join(words).encode()


def action_format():
    spec = importlib.util.spec_from_file_location("action_format",
                                                  os.path.join(TOOLS, "test_cvis_action.py"))
    mod = importlib.util.module_from_spec(spec)
    argv = sys.argv
    sys.argv = ["test_cvis_action.py", ACTION]
    spec.loader.exec_module(mod)
    sys.argv = argv
    shutil.rmtree(mod.TMP, ignore_errors=True)
    return mod


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def main():
    fmt = action_format()
    rng0 = random.Random(11)
    dim = 5
    models = [("walking", "src", fmt.random_nodes(rng0, 4, dim, 0, True)),
              ("boxing", "", fmt.random_nodes(rng0, 3, dim, 2, True))]
    dict_ok = fmt.dictionary_bytes(models, dim, T=4)
    scene_ok = fmt.scene_text([fmt.random_nodes(rng0, 6, dim, 0, False)], dim).encode()
    good_dict, good_scene = write("good.cvad", dict_ok), write("good.txt", scene_ok)
    image = os.path.join(DATA, "cedd", "checker_64x48.png")
    index_ok = os.path.join(TMP, "good.db")
    ok, diag = run([CEDD, "index", image, "--db", index_ok, "--backend", "cpu"], "cvis-cedd: ")
    case("a valid index to start from", ok and os.path.exists(index_ok), diag)
    index_bytes = open(index_ok, "rb").read() if os.path.exists(index_ok) else b""

    for seed in range(FIRST, FIRST + SEEDS):
        rng = random.Random(seed)
        d = write("d%d.cvad" % seed, mutate(rng, dict_ok))
        problems = []
        for args in (["inspect", d], ["inspect", "--json", d], ["match", "--backend", "cpu", d,
                                                               good_scene]):
            ok, diag = run([ACTION] + args, "cvis-action: ")
            if not ok:
                problems.append(diag)
        case("seed %d: dictionary" % seed, not problems, "\n".join(problems))

        s = write("s%d.txt" % seed, mutate(rng, scene_ok) if rng.randint(0, 1) else
                  mutate_text(rng, scene_ok.decode()))
        ok, diag = run([ACTION, "match", "--backend", "cpu", good_dict, s], "cvis-action: ")
        case("seed %d: scene" % seed, ok, diag)

        if index_bytes:
            db = write("i%d.db" % seed, mutate(rng, index_bytes))
            ok, diag = run([CEDD, "search", image, "--db", db, "--backend", "cpu"],
                           "cvis-cedd: ")
            problems = [] if ok else [diag]
            if seed % 5 == 0:  # the element too (slower: GStreamer starts)
                try:
                    p = subprocess.run(WRAPPER + ["gst-launch-1.0", "-q", "videotestsrc",
                                                  "num-buffers=2", "!", "cudacedd",
                                                  "backend=cpu", "index-location=" + db, "!",
                                                  "fakesink"], capture_output=True, text=True,
                                       timeout=TIMEOUT, errors="replace", env=launch_env())
                    out = p.stdout + p.stderr
                    if any(w in out for w in SANITIZER_WORDS) or p.returncode not in (0, 1, 255):
                        problems.append("gst-launch-1.0 cudacedd: status %d\n%s" %
                                        (p.returncode, out))
                except subprocess.TimeoutExpired:
                    problems.append("gst-launch-1.0 cudacedd index-location=%s hung" % db)
            case("seed %d: index" % seed, not problems, "\n".join(problems))
        png = write("p%d.png" % seed, mutate(rng, open(image, "rb").read()))
        ok, diag = run([CEDD, "describe", "--backend", "cpu", png], "cvis-cedd: ")
        case("seed %d: image" % seed, ok, diag)
        for f in os.listdir(TMP):
            if f.startswith(("d%d." % seed, "s%d." % seed, "i%d." % seed, "p%d." % seed)):
                os.remove(os.path.join(TMP, f))

    shutil.rmtree(TMP, ignore_errors=True)
    print("1..%d" % len(RESULTS))
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
