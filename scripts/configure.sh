#!/usr/bin/env bash
# Configures a Meson build directory (default: build/). CUDA is used when the toolkit is present
# (nvcc at $CUDA_HOME/bin or /usr/local/cuda/bin); extra arguments go to `meson setup`.
# Usage: scripts/configure.sh [BUILD_DIR] [meson options...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
args=(-Dbuildtype=release)
if [ -x "$CUDA_HOME/bin/nvcc" ]; then
  mkdir -p "$BUILD"
  # Meson 1.0 ignores $NVCC: name the real compiler (not a wrapper) so cuda.h is found beside it.
  printf '[binaries]\ncuda = '"'"'%s'"'"'\n' "$CUDA_HOME/bin/nvcc" > "$BUILD.native.ini"
  args+=(--native-file "$BUILD.native.ini" -Dcuda=enabled -Dcuda-root="$CUDA_HOME")
else
  echo "configure: no CUDA toolkit at $CUDA_HOME: building the CPU backends only" >&2
  args+=(-Dcuda=disabled)
fi
mode=()
[ -f "$BUILD/build.ninja" ] && mode=(--reconfigure)
if ! meson setup "${mode[@]}" "$BUILD" "${args[@]}" "$@" > "$BUILD.setup.log" 2>&1; then
  tail -n 20 "$BUILD.setup.log" >&2
  echo "configure: meson setup failed (log: $BUILD.setup.log)" >&2
  exit 1
fi
meson introspect "$BUILD" --buildoptions | python3 -c '
import json,sys
o={x["name"]:x["value"] for x in json.load(sys.stdin)}
print("configure: cuda=%s cuda-arch=%s buildtype=%s" % (o["cuda"], o["cuda-arch"], o["buildtype"]), file=sys.stderr)'
