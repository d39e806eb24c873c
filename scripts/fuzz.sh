#!/usr/bin/env bash
# The fuzz suite (tests/fuzz) under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer: a build of its own (default build-asan: CPU backends, no
# benchmarks), then `meson test --suite fuzz`. Ends with "N passed, N failed".
# Usage: scripts/fuzz.sh [BUILD_DIR]
# The element fuzzer alone on the CUDA backends (a GPU host, a CUDA build, no ASan):
#   compute-sanitizer --tool memcheck BUILD/tests/fuzz/fuzz_elements --backend cuda --seeds 300
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-asan}
scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
t0=$SECONDS
mode=()
[ -f "$BUILD/build.ninja" ] && mode=(--reconfigure)
if ! meson setup "${mode[@]}" "$BUILD" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined \
    -Db_lundef=false -Dcuda=disabled -Dbenchmarks=false -Dintrospection=disabled \
    > "$BUILD.setup.log" 2>&1; then
  tail -n 20 "$BUILD.setup.log"
  echo "0 passed, 1 failed"
  exit 1
fi
# Only what the fuzz suite runs: the plugin, the tools, the fuzzers.
if ! ninja -C "$BUILD" gst/libgstcudavision.so gst/tools/cvis-action gst/tools/cvis-cedd \
    tests/fuzz/fuzz_elements > "$BUILD.ninja.log" 2>&1; then
  tail -n 60 "$BUILD.ninja.log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "fuzz: build $((SECONDS - t0)) s"
# A sanitizer report is a failure whatever the program's own status; halt at the first one.
# Full stacks for leaks (fast_unwind_on_malloc=0): the suppressions match frames of GStreamer's
# plugin loading, which the fast unwinder does not reach through libraries without frame pointers.
supp=$PWD/tests/fuzz/lsan.supp
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87
# gst-launch-1.0 (not built with ASan) loads the plugin: the runtime goes first. Its leaks at exit
# are GStreamer's tool's, not checked (the fuzzers' own processes are).
CVIS_FUZZ_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export CVIS_FUZZ_PRELOAD
meson test -C "$BUILD" --suite fuzz --print-errorlogs --num-processes 2
rc=$?
python3 scripts/test_summary.py "$BUILD/meson-logs/testlog.junit.xml" || rc=1
echo "fuzz: total $((SECONDS - t0)) s"
exit $rc
