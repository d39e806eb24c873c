#!/usr/bin/env bash
# scripts/jetson/selfcheck.sh against fakes: a JetPack 6.2 Orin file tree, and stand-ins for
# gst-inspect-1.0, gst-launch-1.0, nvcc, pkg-config and meson that record what they are asked.
# Checks the versions it reports, the pipelines it runs per element and memory kind, the counts
# (one pipeline is made to fail) and the dry run. TAP output.
set -uo pipefail
SELF=$(cd "$(dirname "$0")/../.." && pwd)/scripts/jetson/selfcheck.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/root/etc" "$T/root/proc/device-tree" "$T/bin" "$T/build/gst" "$T/build/meson-logs"
echo "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan 8 01:49:37 UTC 2025" > "$T/root/etc/nv_tegra_release"
printf 'NVIDIA Jetson AGX Orin Developer Kit\0' > "$T/root/proc/device-tree/model"
touch "$T/build/build.ninja"

cat > "$T/bin/gst-inspect-1.0" <<'FAKE'
#!/bin/sh
echo "gst-inspect $*" >> "$FAKE_LOG"
case "$1" in
  --exists) case "$2" in cudaupload|cudadownload|nvvidconv) exit 0 ;; *) exit 1 ;; esac ;;
  cudavision)
    printf 'Plugin Details:\n  Name                     cudavision\n  Version                  0.1.0\n\n'
    printf '  cudabgsub: CUDA background subtraction\n  cudacedd: CEDD\n  cudamedian3d: median\n\n  3 features:\n' ;;
esac
FAKE
cat > "$T/bin/gst-launch-1.0" <<'FAKE'
#!/bin/sh
[ "$1" = --version ] && { printf 'gst-launch-1.0 version 1.26.2\nGStreamer 1.26.2\n'; exit 0; }
echo "gst-launch $*" >> "$FAKE_LOG"
case "$*" in *NVMM*cudamedian3d*) echo "ERROR: from element cudamedian3d0: fake failure" >&2; exit 1 ;; esac
exit 0
FAKE
cat > "$T/bin/nvcc" <<'FAKE'
#!/bin/sh
echo "Cuda compilation tools, release 12.6, V12.6.68"
FAKE
cat > "$T/bin/pkg-config" <<'FAKE'
#!/bin/sh
[ "$2" = gstreamer-cuda-1.0 ] && echo 1.26.2
FAKE
cat > "$T/bin/meson" <<'FAKE'
#!/bin/sh
echo "meson CVIS_REQUIRE_GPU=${CVIS_REQUIRE_GPU:-} $*" >> "$FAKE_LOG"
cat > "$3/meson-logs/testlog.junit.xml" <<XML
<testsuites><testsuite name="gpu"><testcase classname="a" name="one"/><testcase classname="a" name="two"/></testsuite></testsuites>
XML
FAKE
chmod +x "$T/bin/"*

export FAKE_LOG=$T/calls.log CVIS_SELFCHECK_ROOT=$T/root PATH="$T/bin:$PATH"
out=$("$SELF" --build "$T/build" 2>&1); rc=$?
n=0 failed=0
check() {  # DESCRIPTION CONDITION...
  local d=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=1; fi
}
# shellcheck disable=SC2317  # called through check
has() { grep -qF -- "$1" <<< "$out"; }
# shellcheck disable=SC2317
called() { grep -qF -- "$1" "$FAKE_LOG"; }
check "L4T and JetPack from nv_tegra_release" has "L4T 36.4.3, JetPack 6.2"
check "device-tree model" has "NVIDIA Jetson AGX Orin Developer Kit, kernel"
check "GStreamer and gstreamer-cuda versions" has "GStreamer: 1.26.2; gstreamer-cuda-1.0: 1.26.2"
check "nvcc version" has "CUDA toolkit (nvcc): 12.6"
check "upstream elements found, camera absent" has "upstream/NVIDIA elements: cudaupload cudadownload nvvidconv"
check "plugin features" has "plugin cudavision 0.1.0: cudabgsub cudacedd cudamedian3d"
check "gpu suite run with CVIS_REQUIRE_GPU, counted" has "gpu suite: 2 passed, 0 failed"
check "meson test --suite gpu called" called "meson CVIS_REQUIRE_GPU=1 test -C $T/build --suite gpu"
check "system-memory pipeline per element" called "gst-launch -q videotestsrc num-buffers=60 pattern=ball ! video/x-raw,format=RGBA,width=640,height=480,framerate=30/1 ! cudacedd backend=cuda ! fakesink"
check "CUDA-memory pipeline through cudaupload" called "! cudaupload ! video/x-raw(memory:CUDAMemory) ! cudabgsub backend=cuda ! fakesink"
check "NVMM pipeline through nvvidconv" called "! nvvidconv ! video/x-raw(memory:NVMM),format=RGBA ! cudaupload ! video/x-raw(memory:CUDAMemory) ! cudamedian3d"
check "nine pipelines" test "$(grep -c '^gst-launch' "$FAKE_LOG")" -eq 9
check "the failing pipeline is reported" has "FAIL cudamedian3d NVMM -> CUDA memory (nvvidconv ! cudaupload)"
check "with the error's last line" has "last line: ERROR: from element cudamedian3d0: fake failure"
check "counts: plugin + 2 suite cases + 8 pipelines passed, 1 failed" has "11 passed, 1 failed"
check "exit status 1 on a failure" test "$rc" -eq 1
check "report written" grep -qF "11 passed, 1 failed" "$T/build/selfcheck-report.txt"
: > "$FAKE_LOG"
out=$("$SELF" --build "$T/build" --dry-run 2>&1); rc=$?
check "dry run runs no pipeline and no suite" test "$(grep -c '^gst-launch\|^meson' "$FAKE_LOG")" -eq 0
check "dry run lists the pipelines" test "$(grep -c 'would run \[' <<< "$out")" -eq 9
check "dry run passes" test "$rc" -eq 0
echo "1..$n"
exit $failed
