#!/usr/bin/env bash
# Builds everything for the GPU host here (Debian 12, nvcc) and stages what is copied there
# in .device/ (ignored by git): the GStreamer 1.22 runtime bundle with our plugin, the test
# and benchmark executables, the test data (tests/data) and a generated H.264 clip.
# The build uses the committed tree (a git worktree at build-gpu-src, detached at HEAD), so work in
# progress in the checkout cannot leak into what is measured.
# Usage: scripts/gpu/prepare.sh [CUDA_ARCH]   (default 90: the H100)
# CVIS_DEVICE_KIT (required): the folder holding make-gst-bundle.sh, the GPU host's GStreamer
# bundle kit; it is GPU-host staging only, nothing in the build or the tests needs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
ARCH=${1:-90}
KIT=${CVIS_DEVICE_KIT:-}
if [ -z "$KIT" ] || [ ! -f "$KIT/make-gst-bundle.sh" ]; then
  echo "prepare: set CVIS_DEVICE_KIT to the folder holding make-gst-bundle.sh" >&2
  exit 1
fi
SRC=$REPO/build-gpu-src
BUILD=$REPO/build-gpu
scripts/deps.sh
# The commit built, read once: HEAD may move while the build runs (.device/COMMIT names this one).
COMMIT=$(git rev-parse HEAD)
if [ -d "$SRC/.git" ] || [ -f "$SRC/.git" ]; then
  git -C "$SRC" checkout -q --detach "$COMMIT"
else
  git worktree add -q --detach "$SRC" "$COMMIT"
fi
echo "prepare: building ${COMMIT:0:7} for sm_$ARCH" >&2
# -Dtestdata-dir= resets what an older build directory was configured with (tests/data now).
"$SRC/scripts/configure.sh" "$BUILD" -Dcuda-arch="$ARCH" -Dtestdata-dir=
# Meson 1.0's nvcc rule writes no dependency file, so ninja does not rebuild a .cu whose headers
# changed (a stale object once read a moved struct field): every CUDA object is rebuilt unless
# the last build here was of a commit that differs from this one in no .cu or header file.
LAST=$(cat "$BUILD/.cvis-commit" 2>/dev/null || true)
if [ -z "$LAST" ] || ! git cat-file -e "$LAST^{commit}" 2>/dev/null ||
    [ -n "$(git diff --name-only "$LAST" "$COMMIT" -- '*.cu' '*.cuh' '*.h' '*.hpp' '*.inc')" ]; then
  find "$BUILD" -name '*.cu.o' -delete 2>/dev/null || true
fi
rm -f "$BUILD/.cvis-commit"
ninja -C "$BUILD" > "$BUILD.ninja.log" 2>&1 || { tail -n 40 "$BUILD.ninja.log"; exit 1; }
echo "$COMMIT" > "$BUILD/.cvis-commit"
rm -rf .device && mkdir -p .device/bin .device/lib .device/testdata .device/media
bash "$KIT/make-gst-bundle.sh" --no-dev --tar .device/gst-bundle.tar.xz \
  "$BUILD/gstbundle" "$BUILD/gst" 2>"$BUILD/bundle.log" || { tail "$BUILD/bundle.log"; exit 1; }
find "$BUILD/tests" "$BUILD/gst/tools" -type f -executable \
  \( -name 'test_*' -o -name 'bench_*' -o -name 'cvis-*' -o -name 'gen_actions' -o -name 'fuzz_*' \) \
  -exec cp {} .device/bin/ \;
# What goes to the GPU host is kept under 64 MiB: stripped, and packed (run.sh unpacks).
strip --strip-unneeded .device/bin/*
tar -cJf .device/bin.tar.xz -C .device bin && rm -rf .device/bin
find "$BUILD/gst" -maxdepth 1 -name 'libgstcvis-1.0.so*' ! -type d -exec cp -a {} .device/lib/ \;
# Test-only libraries the runtime bundle does not carry.
cp -aL /usr/lib/x86_64-linux-gnu/libgstcheck-1.0.so.0 .device/lib/
cp -a "$SRC"/tests/data/. .device/testdata/
[ -f "$REPO/build-gpu-clip.mp4" ] || scripts/make-clip.sh "$REPO/build-gpu-clip.mp4" 1920 1080 75
cp "$REPO/build-gpu-clip.mp4" .device/media/test-1080p.mp4
# bench_streams' clip: 40 s, so that a 10-s warm-up and a 20-s window see no loop (seek) at ~35 fps.
[ -f "$REPO/build-gpu-clip-long.mp4" ] || scripts/make-clip.sh "$REPO/build-gpu-clip-long.mp4" 1920 1080 300
cp "$REPO/build-gpu-clip-long.mp4" .device/media/test-1080p-long.mp4
# Real footage for bench_streams (--clip): vtest.avi at 1080p30 (needs opencv-doc's .deb once),
# forward, backward and forward (79.4 s: no loop in a 10-s warm-up and 20-s window up to 79 fps).
if street=$(scripts/get-street-clip.sh "$REPO/.cache/demo" --hd-long); then
  cp "$street" .device/media/street-1080p30-long.mp4
fi
# The gpu suite's binaries (run.sh sanitize runs compute-sanitizer over them).
meson introspect --tests "$BUILD" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if any(s.endswith(":gpu") for s in t["suite"]):
        print(os.path.basename(t["cmd"][0]))' | sort -u > .device/gpu-tests.txt
echo "$COMMIT" > .device/COMMIT
du -sh .device
