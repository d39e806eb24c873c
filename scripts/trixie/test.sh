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
# nvcc-link.ini: nvcc 12.4 links through g++-13, whose libstdc++ is too old for gcc 14 code.
scripts/trixie/env.sh --with cuda -- env CUDA_HOME=/usr \
  CVIS_CONFIGURE_ARGS="-Dcuda-arch=${CVIS_TRIXIE_ARCHS:-87} -Dbenchmarks=false --native-file $PWD/scripts/trixie/nvcc-link.ini" \
  scripts/test.sh "$BUILD" |
  tee "$BUILD.out"
rc=${PIPESTATUS[0]}
if ! grep -qE "^[0-9]+ passed, [0-9]+ failed$" "$BUILD.out"; then
  echo "trixie: the tree could not be set up (scripts/trixie/env.sh)"
  echo "0 passed, 1 failed"
  exit 1
fi
exit "$rc"
