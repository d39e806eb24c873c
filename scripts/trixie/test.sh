#!/usr/bin/env bash
# Builds the project against GStreamer 1.26 in the Debian trixie tree (scripts/trixie/env.sh), with
# Debian's CUDA toolkit 12.4 for the CUDA backends (one architecture: this build checks the
# version-specific code compiles and the cpu suite passes; the release build is scripts/test.sh),
# and runs the cpu suite (benchmarks are not built: nothing runs them here). Ends with the line
# "N passed, N failed".
# Usage: scripts/trixie/test.sh [BUILD_DIR]       (default: build-trixie)
# Environment: CVIS_TRIXIE_ARCHS (default 87), CVIS_ENV_DIR (see scripts/trixie/env.sh)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build-trixie}
# nvcc 12.4 compiles with g++-13 (it rejects gcc 14's headers) and links through it; trixie's
# g++-13 has its own libstdc++.so, older than the runtime that gcc 14 code (ours and libgtest.a)
# needs (__cxa_call_terminate): gcc 14's folder first in nvcc's link search path.
scripts/trixie/env.sh --with cuda -- env CUDA_HOME=/usr \
  CVIS_CONFIGURE_ARGS="-Dcuda-arch=${CVIS_TRIXIE_ARCHS:-87} -Dbenchmarks=false -Dcuda_link_args=-L/usr/lib/gcc/x86_64-linux-gnu/14" \
  scripts/test.sh "$BUILD" |
  tee "$BUILD.out"
rc=${PIPESTATUS[0]}
if ! grep -qE "^[0-9]+ passed, [0-9]+ failed$" "$BUILD.out"; then
  echo "trixie: the tree could not be set up (scripts/trixie/env.sh)"
  echo "0 passed, 1 failed"
  exit 1
fi
exit "$rc"
