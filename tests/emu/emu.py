#!/usr/bin/env python3
"""CPU emulation of CUDA (tests/emu/README.md): builds a test or benchmark binary from the real .cu
files (launches rewritten for emu_kernel.hpp), the real host sources and the fake runtime
(include/), then runs it.

  tests/emu/emu.py run TARGET [--filter GTEST_FILTER] [-- ARGS...]   a preset (list: emu.py list)
  tests/emu/emu.py build --name NAME --cu A.cu ... --src B.cpp ... [-I DIR ...] [--define X=Y ...]
                   [--no-gtest] [--run [-- ARGS...]]                 any test or benchmark

Paths are relative to the repository root. Every build also compiles cuda/common (status, image,
color, backend, the CUDA runtime helpers) and tests/common/test_images.cpp; include paths cuda/,
tests/common and the fake runtime come first. Objects are cached by the hash of their preprocessed
source and flags under $EMU_OUT (default /tmp/cvis-emu), so rebuilding after an edit recompiles only
what changed. EMU_FLAGS adds compiler and linker flags (e.g. "-fsanitize=address,undefined").
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EMU = os.path.join(ROOT, "tests", "emu")
OUT = os.environ.get("EMU_OUT", "/tmp/cvis-emu")

COMMON = [
    "cuda/common/status.cpp", "cuda/common/image.cpp", "cuda/common/color.cpp",
    "cuda/common/backend.cpp", "cuda/common/cuda/runtime.cpp", "cuda/common/cuda/preload.cpp",
    "cuda/common/cuda/upload.cpp",
    "cuda/common/cuda/device_buffer.cpp", "tests/common/test_images.cpp",
]

# Presets: what each gpu-suite test needs. New methods add theirs here (or call `build`).
# The matcher library and the test utilities, shared by the matcher presets.
ACTIONMATCH_SRC = ["cuda/actionmatch/actionmatch.cpp", "cuda/actionmatch/actionmatch_evaluate.cpp",
                   "cuda/actionmatch/actionmatch_layout.cpp", "cuda/actionmatch/actionmatch_cpu.cpp",
                   "cuda/actionmatch/actionmatch_cuda.cpp",
                   "tests/algo/actionmatch/actionmatch_test_util.cpp"]
# The front end (cuda/stip): kernels and sources.
STIP_CU = ["cuda/stip/stip_kernels.cu", "cuda/stip/stip_kernels_points.cu",
           "cuda/stip/stip_kernels_harris.cu"]
STIP_SRC = ["cuda/stip/stip.cpp", "cuda/stip/stip_cpu.cpp", "cuda/stip/stip_ref.cpp",
            "cuda/stip/stip_ref_harris.cpp", "cuda/stip/stip_cuda.cpp"]

TARGETS = {
    "median3d": dict(
        name="test_median3d_gpu",
        cu=["cuda/median3d/median3d_kernels.cu", "cuda/median3d/median3d_kernels_integral.cu",
            "cuda/median3d/median3d_kernels_output.cu", "cuda/ccl/ccl_kernels.cu"],
        src=["cuda/median3d/median3d.cpp", "cuda/median3d/median3d_reference.cpp",
             "cuda/median3d/median3d_cpu.cpp", "cuda/median3d/median3d_cuda.cpp",
             "cuda/ccl/ccl_cpu.cpp", "cuda/ccl/ccl_cuda.cpp",
             "tests/algo/median3d/test_median3d_gpu.cpp"],
        inc=["cuda/median3d", "tests/algo/median3d"]),
    "motion": dict(
        name="test_motion_gpu",
        cu=["cuda/median3d/motion_kernels.cu", "cuda/ccl/ccl_kernels.cu",
            "cuda/median3d/median3d_kernels.cu", "cuda/median3d/median3d_kernels_integral.cu",
            "cuda/median3d/median3d_kernels_output.cu"],
        src=["cuda/median3d/median3d.cpp", "cuda/median3d/median3d_cpu.cpp",
             "cuda/median3d/median3d_reference.cpp", "cuda/median3d/median3d_cuda.cpp",
             "cuda/median3d/motion.cpp", "cuda/median3d/motion_cpu.cpp",
             "cuda/median3d/motion_cuda.cpp", "cuda/ccl/ccl_cpu.cpp", "cuda/ccl/ccl_cuda.cpp",
             "tests/algo/median3d/test_motion_gpu.cpp"],
        inc=["cuda/median3d", "tests/algo/median3d"]),
    "ccl": dict(
        name="test_ccl_gpu",
        cu=["cuda/ccl/ccl_kernels.cu"],
        src=["cuda/ccl/ccl_cpu.cpp", "cuda/ccl/ccl_cuda.cpp", "tests/algo/ccl/test_ccl_gpu.cpp"],
        inc=["tests/algo/ccl"]),
    "cedd": dict(
        name="test_cedd_gpu",
        cu=["cuda/cedd/cedd_kernels.cu"],
        src=["cuda/cedd/cedd.cpp", "cuda/cedd/cedd_cpu.cpp", "cuda/cedd/cedd_cuda.cpp",
             "tests/algo/cedd/cedd_test_util.cpp", "tests/algo/cedd/test_cedd_gpu.cpp"],
        inc=["tests/algo/cedd"]),
    "cedd_search": dict(
        name="test_cedd_search_gpu",
        cu=["cuda/cedd/cedd_search_kernels.cu"],
        src=["cuda/cedd/cedd_search.cpp", "cuda/cedd/cedd_search_cpu.cpp",
             "cuda/cedd/cedd_search_cuda.cpp", "tests/algo/cedd/test_cedd_search_gpu.cpp"],
        inc=["tests/algo/cedd"]),
    "cpwl": dict(
        name="test_cpwl_gpu",
        cu=["cuda/cpwl/cpwl_kernels.cu"],
        src=["cuda/cpwl/cpwl_cpu.cpp", "cuda/cpwl/cpwl_cuda.cpp", "tests/algo/cpwl/test_cpwl_gpu.cpp",
             "tests/algo/cpwl/test_cpwl_device_table.cpp"],
        inc=[]),
    "bgsub": dict(
        name="test_bgsub_gpu",
        cu=["cuda/bgsub/bgsub_kernels.cu", "cuda/bgsub/bgsub_scene_kernels.cu",
            "cuda/cpwl/cpwl_kernels.cu", "cuda/ccl/ccl_kernels.cu"],
        cu_defines={"cuda/bgsub/bgsub_kernels.cu": ["EMU_FTZ=1"],  # built with -ftz=true
                    "cuda/bgsub/bgsub_scene_kernels.cu": ["EMU_FTZ=1"]},
        src=["cuda/bgsub/bgsub.cpp", "cuda/bgsub/bgsub_cpu.cpp", "cuda/bgsub/bgsub_cuda.cpp",
             "cuda/bgsub/bgsub_scene.cpp",
             "cuda/cpwl/cpwl_cpu.cpp", "cuda/cpwl/cpwl_cuda.cpp", "cuda/ccl/ccl_cpu.cpp",
             "cuda/ccl/ccl_cuda.cpp", "tests/quality/synth_sequence.cpp",
             "tests/algo/bgsub/test_bgsub_gpu.cpp", "tests/algo/bgsub/test_bgsub_scene_gpu.cpp"],
        inc=["tests/quality", "tests/algo/bgsub"]),
    "overlay": dict(
        name="test_overlay_gpu",
        cu=["cuda/overlay/overlay_kernels.cu"],
        src=["cuda/overlay/overlay.cpp", "cuda/overlay/overlay_font.cpp",
             "cuda/overlay/overlay_cpu.cpp", "cuda/overlay/overlay_cuda.cpp",
             "tests/algo/overlay/test_overlay_gpu.cpp"],
        inc=["tests/algo/overlay"]),
    "rcdtrack": dict(
        name="test_rcdtrack_gpu",
        cu=["cuda/rcdtrack/rcdtrack_kernels_integral.cu", "cuda/rcdtrack/rcdtrack_kernels_search.cu"],
        src=["cuda/rcdtrack/rcdtrack.cpp", "cuda/rcdtrack/rcdtrack_cpu.cpp",
             "cuda/rcdtrack/rcdtrack_model.cpp", "cuda/rcdtrack/rcdtrack_plan.cpp",
             "cuda/rcdtrack/rcdtrack_rotation.cpp", "cuda/rcdtrack/rcdtrack_tracker.cpp",
             "cuda/rcdtrack/rcdtrack_tracker_search.cpp", "cuda/rcdtrack/rcdtrack_tracker_state.cpp",
             "cuda/rcdtrack/rcdtrack_detector.cpp",
             "cuda/rcdtrack/rcdtrack_cuda.cpp", "tests/algo/rcdtrack/rcdtrack_scene.cpp",
             "tests/algo/rcdtrack/test_rcdtrack_gpu.cpp"],
        inc=["cuda/rcdtrack", "tests/algo/rcdtrack"]),
    "actionmatch": dict(
        name="test_actionmatch_gpu",
        cu=["cuda/actionmatch/actionmatch_prologue.cu", "cuda/actionmatch/actionmatch_trellis.cu"],
        src=ACTIONMATCH_SRC + ["tests/algo/actionmatch/test_actionmatch_gpu.cpp"],
        inc=["cuda/actionmatch", "tests/algo/actionmatch"]),
    "actionmatch_rows": dict(
        name="test_actionmatch_gpu_rows",
        cu=["cuda/actionmatch/actionmatch_prologue.cu", "cuda/actionmatch/actionmatch_trellis.cu"],
        src=ACTIONMATCH_SRC + ["tests/algo/actionmatch/test_actionmatch_gpu_rows.cpp"],
        inc=["cuda/actionmatch", "tests/algo/actionmatch"]),
    "actionmatch_frontend": dict(
        name="test_actionmatch_frontend_gpu",
        cu=STIP_CU,
        src=STIP_SRC + ["tests/algo/actionmatch/test_actionmatch_frontend_gpu.cpp"],
        inc=["cuda/stip", "cuda/actionmatch", "tests/algo/actionmatch"]),
    # The benchmarks' flow and exact checks on tiny inputs (timings mean nothing here).
    "bench_median3d": dict(
        name="bench_median3d", gtest=False,
        cu=["cuda/median3d/median3d_kernels.cu", "cuda/median3d/median3d_kernels_integral.cu",
            "cuda/median3d/median3d_kernels_output.cu", "cuda/ccl/ccl_kernels.cu"],
        src=["cuda/median3d/median3d.cpp", "cuda/median3d/median3d_reference.cpp",
             "cuda/median3d/median3d_cpu.cpp", "cuda/median3d/median3d_cuda.cpp",
             "cuda/ccl/ccl_cpu.cpp", "cuda/ccl/ccl_cuda.cpp",
             "tests/bench/median3d/bench_median3d.cpp"],
        inc=["cuda/median3d"],
        args=["--sizes", "37x23:16,64x48:256,33x65:64", "--seconds", "0.02", "--cpu-frames", "3"]),
    "bench_motion": dict(
        name="bench_motion", gtest=False,
        cu=["cuda/median3d/motion_kernels.cu", "cuda/ccl/ccl_kernels.cu",
            "cuda/median3d/median3d_kernels.cu", "cuda/median3d/median3d_kernels_integral.cu",
            "cuda/median3d/median3d_kernels_output.cu"],
        src=["cuda/median3d/median3d.cpp", "cuda/median3d/median3d_cpu.cpp",
             "cuda/median3d/median3d_reference.cpp", "cuda/median3d/median3d_cuda.cpp",
             "cuda/median3d/motion.cpp", "cuda/median3d/motion_cpu.cpp",
             "cuda/median3d/motion_cuda.cpp", "cuda/ccl/ccl_cpu.cpp", "cuda/ccl/ccl_cuda.cpp",
             "tests/bench/median3d/bench_motion.cpp"],
        inc=["cuda/median3d"],
        args=["--quick", "--frames", "2"]),
    "bench_cedd": dict(
        name="bench_cedd", gtest=False,
        cu=["cuda/cedd/cedd_kernels.cu"],
        src=["cuda/cedd/cedd.cpp", "cuda/cedd/cedd_cpu.cpp", "cuda/cedd/cedd_cuda.cpp",
             "tests/bench/cedd/bench_cedd.cpp"],
        inc=[],
        args=["--quick", "--sizes", "64x48,200x120,37x23", "--batch", "9"]),
    "bench_actionmatch": dict(
        name="bench_actionmatch", gtest=False,
        cu=["cuda/actionmatch/actionmatch_prologue.cu", "cuda/actionmatch/actionmatch_trellis.cu"],
        src=ACTIONMATCH_SRC[:-1] + ["tests/bench/actionmatch/bench_actionmatch.cpp"],
        inc=["cuda/actionmatch", "tests/algo/actionmatch"],
        args=["--only", "C", "--models", "3", "--quick"]),
    "bench_cedd_search": dict(
        name="bench_cedd_search", gtest=False,
        cu=["cuda/cedd/cedd_search_kernels.cu"],
        src=["cuda/cedd/cedd_search.cpp", "cuda/cedd/cedd_search_cpu.cpp",
             "cuda/cedd/cedd_search_cuda.cpp", "tests/bench/cedd/bench_cedd_search.cpp"],
        inc=[],
        args=["--rows", "3000,700", "--runs", "3", "--queries", "4", "--cpu-runs", "1",
              "--chunk-rows", "1024"]),
    "bench_actionmatch_frontend": dict(
        name="bench_actionmatch_frontend", gtest=False,
        cu=STIP_CU,
        src=STIP_SRC + ["tests/bench/actionmatch/bench_actionmatch_frontend.cpp"],
        inc=["cuda/stip", "cuda/actionmatch"],
        args=["--quick"]),
}

# Inline PTX the emulator knows: instruction -> function in emu::ptx (one output, one input).
PTX = {"ex2.approx.ftz.f32": "emu::ptx::ex2_approx_ftz_f32"}


def fail(msg):
    sys.exit("emu: " + msg)


def matching(text, i, open_ch, close_ch, step):
    """Index of the bracket matching text[i] scanning in `step` direction."""
    depth = 0
    while 0 <= i < len(text):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += step
    fail("unbalanced %s%s" % (open_ch, close_ch) if step > 0 else "unbalanced brackets")


def split_top(s):
    """Splits at commas outside (), [], {}."""
    parts, depth, cur = [], 0, ""
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def rewrite_launches(text, path):
    out, pos = [], 0
    while True:
        i = text.find("<<<", pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        # The kernel expression: an identifier path, optionally with template arguments.
        k = i
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if text[k - 1] == ">":
            k = matching(text, k - 1, ">", "<", -1)
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_:"):
            k -= 1
        kernel = text[k:i].strip()
        j = text.find(">>>", i)
        cfg = split_top(text[i + 3:j])
        if len(cfg) < 2 or len(cfg) > 4:
            fail("%s: launch configuration of %s not understood" % (path, kernel))
        cfg += ["0"] * (4 - len(cfg))
        a = j + 3
        while text[a] in " \t\n":
            a += 1
        if text[a] != "(":
            fail("%s: no arguments after the launch of %s" % (path, kernel))
        b = matching(text, a, "(", ")", 1)
        args = text[a + 1:b].strip()
        line = text.count("\n", 0, k) + 1
        name = re.sub(r"\s+", " ", kernel)
        call = 'emu::launch("%s", "%s", %d, %s, %s, %s, %s, %s%s)' % (
            name.replace('"', ""), os.path.basename(path), line, cfg[0], cfg[1], cfg[2], cfg[3],
            kernel, ", " + args if args else "")
        out.append(text[pos:k])
        out.append(call)
        pos = b + 1


ASM = re.compile(r'asm\s*(?:volatile\s*)?\(\s*"([^"]*)"\s*:\s*"=\w"\s*\(\s*([^)]+?)\s*\)\s*:'
                 r'\s*"\w"\s*\(\s*([^)]+?)\s*\)\s*\)\s*;')


def rewrite_asm(text, path):
    def repl(m):
        insn = m.group(1).split()[0]
        if insn not in PTX:
            fail("%s: inline PTX %r has no emulation (add it to PTX in emu.py and emu::ptx)" %
                 (path, insn))
        return "%s = %s(%s);" % (m.group(2), PTX[insn], m.group(3))
    text = ASM.sub(repl, text)
    if re.search(r"\basm\s*(volatile\s*)?\(", text):
        fail("%s: an asm statement emu.py cannot rewrite" % path)
    return text


def rewrite(path):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    text = rewrite_launches(text, path)
    text = re.sub(r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w:]+)\s+(\w+)\s*\[\s*\]\s*;",
                  r"\1* \2 = reinterpret_cast<\1*>(emu::dyn_smem());", text)
    text = rewrite_asm(text, path)
    return '#line 1 "%s"\n' % os.path.join(ROOT, path) + text


def compiler_flags(inc, defines):
    flags = ["-std=c++20", "-O2", "-g", "-ffp-contract=off", "-DCVIS_HAVE_CUDA=1", "-DCVIS_EMU=1",
             "-I" + os.path.join(EMU, "include"), "-I" + os.path.join(ROOT, "cuda"),
             "-I" + os.path.join(ROOT, "tests", "common"), "-Wno-unknown-pragmas",
             '-DCVIS_TESTDATA_DEFAULT="%s"' % os.path.join(ROOT, "tests", "data")]
    flags += ["-I" + os.path.join(ROOT, d) for d in inc]
    flags += ["-D" + d for d in defines]
    flags += shlex.split(os.environ.get("EMU_FLAGS", ""))
    return flags


def compile_one(src_path, text, flags, kernel):
    """Compiles `text` (the source of src_path, maybe rewritten); returns the object path."""
    os.makedirs(os.path.join(OUT, "obj"), exist_ok=True)
    base = os.path.splitext(os.path.basename(src_path))[0]
    work = os.path.join(OUT, "src")
    os.makedirs(work, exist_ok=True)
    full = flags + ["-iquote", os.path.dirname(os.path.join(ROOT, src_path))]
    full += ["-include", os.path.join(EMU, "emu_kernel.hpp")] if kernel else []
    tmp = os.path.join(work, "%s.%d.cpp" % (base, os.getpid()))
    with open(tmp, "w") as f:
        f.write(text)
    pre = subprocess.run(["g++", "-E", "-P"] + full + [tmp], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.join(ROOT, src_path)))
    if pre.returncode:
        os.unlink(tmp)
        sys.stderr.write(pre.stderr)
        fail("preprocessing %s failed" % src_path)
    key = hashlib.sha1((" ".join(full) + pre.stdout).encode()).hexdigest()[:16]
    obj = os.path.join(OUT, "obj", "%s-%s.o" % (base, key))
    if not os.path.exists(obj):
        r = subprocess.run(["g++", "-c"] + full + [tmp, "-o", obj + ".tmp"],
                           cwd=os.path.dirname(os.path.join(ROOT, src_path)),
                           capture_output=True, text=True)
        if r.returncode:
            os.unlink(tmp)
            sys.stderr.write(r.stderr)
            fail("compiling %s failed" % src_path)
        os.replace(obj + ".tmp", obj)
    os.unlink(tmp)
    return obj


def build(name, cu, src, inc=(), defines=(), cu_defines=None, gtest=True):
    cu_defines = cu_defines or {}
    flags = compiler_flags(inc, defines)
    jobs = []
    for p in cu:
        jobs.append((p, rewrite(p), flags + ["-D" + d for d in cu_defines.get(p, [])], True))
    for p in COMMON + list(src):
        if not os.path.exists(os.path.join(ROOT, p)):
            fail("no such source: " + p)
        with open(os.path.join(ROOT, p)) as f:
            jobs.append((p, '#line 1 "%s"\n' % os.path.join(ROOT, p) + f.read(), flags, False))
    workers = int(os.environ.get("EMU_JOBS", os.cpu_count() or 2))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        objs = list(ex.map(lambda j: compile_one(*j), jobs))
    exe = os.path.join(OUT, name)
    libs = (["-lgtest_main", "-lgtest"] if gtest else []) + ["-lpng", "-lpthread"]
    r = subprocess.run(["g++", "-o", exe] + objs + libs + shlex.split(os.environ.get("EMU_FLAGS", "")))
    if r.returncode:
        fail("linking %s failed" % name)
    print("emu: built %s" % exe, file=sys.stderr)
    return exe


def run(exe, args):
    env = dict(os.environ)
    env.setdefault("CVIS_REQUIRE_GPU", "1")
    env.setdefault("CVIS_TESTDATA", os.path.join(ROOT, "tests", "data"))
    return subprocess.call([exe] + args, env=env)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the presets")
    r = sub.add_parser("run", help="build and run a preset")
    r.add_argument("target", choices=sorted(TARGETS))
    r.add_argument("--filter", help="gtest filter")
    b = sub.add_parser("build", help="build any binary (and run it with --run)")
    b.add_argument("--name", required=True)
    b.add_argument("--cu", nargs="*", default=[])
    b.add_argument("--src", nargs="*", default=[])
    b.add_argument("-I", dest="inc", action="append", default=[])
    b.add_argument("--define", action="append", default=[])
    b.add_argument("--no-gtest", action="store_true")
    b.add_argument("--run", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for t, spec in sorted(TARGETS.items()):
            print("%-10s %s: %s" % (t, spec["name"], " ".join(spec["cu"])))
        return 0
    if a.cmd == "run":
        spec = TARGETS[a.target]
        gtest = spec.get("gtest", True)
        exe = build(spec["name"], spec["cu"], spec["src"], spec["inc"],
                    cu_defines=spec.get("cu_defines"), gtest=gtest)
        args = (["--gtest_filter=" + a.filter] if a.filter else []) + spec.get("args", []) + extra
        return run(exe, args)
    exe = build(a.name, a.cu, a.src, a.inc, a.define, gtest=not a.no_gtest)
    return run(exe, extra) if a.run else 0


if __name__ == "__main__":
    sys.exit(main())
