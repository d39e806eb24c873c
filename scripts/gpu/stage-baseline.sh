#!/usr/bin/env bash
# Builds named test and benchmark targets of an earlier commit for sm_ARCH and packs them, with
# that commit's plugin and metadata library, into .device-base/base.tar.xz, so that one device
# call can run the same tests and benchmarks with both builds (scripts/gpu/compare.sh).
# The build uses a detached worktree at build-base-src and the build folder build-base.
# Usage: scripts/gpu/stage-baseline.sh REV [ARCH] -- TARGET...   (targets as Meson paths, e.g.
#        tests/bench/actionmatch/bench_actionmatch)
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=$1; shift
ARCH=90
if [ "${1:-}" != "--" ]; then ARCH=$1; shift; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "stage-baseline: no targets" >&2; exit 2; }
COMMIT=$(git rev-parse "$REV")
SRC=$PWD/build-base-src BUILD=$PWD/build-base
if [ -e "$SRC/.git" ]; then git -C "$SRC" checkout -q --detach "$COMMIT"
else git worktree add -q --detach "$SRC" "$COMMIT"; fi
"$SRC/scripts/configure.sh" "$BUILD" -Dcuda-arch="$ARCH"
ninja -C "$BUILD" "$@" gst/libgstcudavision.so > "$BUILD.ninja.log" 2>&1 ||
  { tail -n 40 "$BUILD.ninja.log"; exit 1; }
T=$(mktemp -d); mkdir -p "$T/base/bin" "$T/base/plugin" "$T/base/lib"
for t in "$@"; do cp "$BUILD/$t" "$T/base/bin/"; done
cp "$BUILD/gst/libgstcudavision.so" "$T/base/plugin/"
find "$BUILD/gst" -maxdepth 1 -name 'libgstcvis-1.0.so*' ! -type d -exec cp -a {} "$T/base/lib/" \;
strip --strip-unneeded "$T"/base/bin/* "$T"/base/plugin/*
echo "$COMMIT" > "$T/base/COMMIT"
rm -rf .device-base && mkdir -p .device-base
tar -cJf .device-base/base.tar.xz -C "$T" base && rm -rf "$T"
du -sh .device-base
