#!/usr/bin/env bash
# Builds everything for the GPU host here (Debian 12, nvcc) and stages what the `device` tool
# carries in .device/ (ignored by git): the GStreamer 1.22 runtime bundle with our plugin, the test
# and benchmark executables, the shared test data and a generated H.264 clip.
# Usage: scripts/gpu/prepare.sh [CUDA_ARCH]   (default 90: the H100)
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCH=${1:-90}
BUILD=build-gpu
scripts/deps.sh
scripts/configure.sh "$BUILD" -Dcuda-arch="$ARCH"
ninja -C "$BUILD" >/dev/null
rm -rf .device && mkdir -p .device/bin .device/lib .device/testdata .device/media
bash ../shared/device/make-gst-bundle.sh --no-dev --tar .device/gst-bundle.tar.xz \
  "$BUILD/gstbundle" "$BUILD/gst" 2>"$BUILD/bundle.log" || { tail "$BUILD/bundle.log"; exit 1; }
find "$BUILD/tests" "$BUILD/gst/tools" -maxdepth 3 -type f -executable \
  \( -name 'test_*' -o -name 'bench_*' -o -name 'cvis-*' \) -exec cp {} .device/bin/ \;
cp -a "$BUILD"/gst/libgstcvis-1.0.so* .device/lib/
cp -a ../shared/testdata/cedd .device/testdata/
[ -f "$BUILD/test-1080p.mp4" ] || scripts/make-clip.sh "$BUILD/test-1080p.mp4" 1920 1080 75
cp "$BUILD/test-1080p.mp4" .device/media/
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
du -sh .device
