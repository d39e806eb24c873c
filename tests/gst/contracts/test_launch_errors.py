#!/usr/bin/python3
"""gst-launch-1.0 on the settings errors that used to hang it (TAP): each case RUNS times under a
timeout, several at once. Every run must exit by itself (not the timeout) with a failure status,
and print the element's error at most once.

Usage: test_launch_errors.py TOOLS_TEST_DIR [RUNS]
TOOLS_TEST_DIR: tests/tools (its test_cvis_action.py writes a dictionary from the format's
description). The plugin comes from GST_PLUGIN_PATH, as for the other element tests.
"""
import concurrent.futures
import importlib.util
import os
import random
import subprocess
import sys
import tempfile

TOOLS = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
TIMEOUT = 60  # seconds per run; a run takes well under one (a hang is the failure sought)
RESULTS = []


def case(name, ok, diag=""):
    RESULTS.append(ok)
    print(("ok" if ok else "not ok") + " %d - %s" % (len(RESULTS), name))
    if not ok and diag:
        for line in str(diag).splitlines()[:30]:
            print("# " + line)
    sys.stdout.flush()


def action_format():
    """tests/tools/test_cvis_action.py's writers of the dictionary format."""
    spec = importlib.util.spec_from_file_location("action_format",
                                                  os.path.join(TOOLS, "test_cvis_action.py"))
    mod = importlib.util.module_from_spec(spec)
    argv = sys.argv
    sys.argv = ["test_cvis_action.py", "unused"]
    spec.loader.exec_module(mod)
    sys.argv = argv
    return mod


def launch(args):
    try:
        p = subprocess.run(["gst-launch-1.0"] + args, capture_output=True, text=True,
                           timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
            errors="replace")
        return None, out


def check(name, args, element):
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(launch, [args] * RUNS))
    hung = [out for rc, out in runs if rc is None]
    ok_status = [out for rc, out in runs if rc is not None and rc != 0]
    line = "ERROR: from element /GstPipeline:pipeline0/%s:" % element
    repeated = [out for rc, out in runs if out.count(line) > 1]
    case("%s: %d runs end by themselves" % (name, RUNS), not hung,
         "%d of %d hung:\n%s" % (len(hung), RUNS, hung[0] if hung else ""))
    case("%s: every run fails" % name, len(ok_status) == RUNS,
         "%d of %d did not exit with a failure status" % (RUNS - len(ok_status), RUNS))
    case("%s: the error is printed once" % name, not repeated,
         "%d runs repeated it:\n%s" % (len(repeated), repeated[0] if repeated else ""))


def main():
    src = ["videotestsrc", "num-buffers=5", "!"]
    check("roi outside the frame",
          src + ["video/x-raw,format=RGBA,width=64,height=48", "!", "cudarcdtrack",
                 "backend=cpu", "roi=100,100,10,10", "!", "fakesink"], "GstCudaRcdTrack")
    check("frames under 8 pixels",
          src + ["video/x-raw,format=RGBA,width=4,height=4", "!", "cudarcdtrack", "backend=cpu",
                 "!", "fakesink"], "GstCudaRcdTrack")
    fmt = action_format()
    tmp = tempfile.mkdtemp(prefix="cvis-launch-errors-")
    rng = random.Random(3)
    dim = 162  # the paper's descriptor (the element's default front end)
    models = [("walking", "", fmt.random_nodes(rng, 4, dim, 0, True))]
    path = os.path.join(tmp, "dict.cvad")
    with open(path, "wb") as f:
        f.write(fmt.dictionary_bytes(models, dim))
    check("overlap not below block-frames",
          src + ["video/x-raw,format=GRAY8,width=64,height=48", "!", "cudaactionmatch",
                 "backend=cpu", "model-location=" + path, "block-frames=20", "overlap=20", "!",
                 "fakesink"], "GstCudaActionMatch")
    for d in (tmp, fmt.TMP):
        subprocess.run(["rm", "-rf", d])
    print("1..%d" % len(RESULTS))
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
