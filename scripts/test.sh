#!/usr/bin/env bash
# The project's test command: installs what is missing (Debian 12 packages), builds everything
# (CUDA backends included when the CUDA toolkit is installed, for every architecture the build
# targets) and runs the `cpu` test suite. Ends with the line "N passed, N failed".
# Usage: scripts/test.sh [--suite cpu|gpu] [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
SUITE=cpu
if [ "${1:-}" = "--suite" ]; then SUITE=$2; shift 2; fi
BUILD=${1:-build}
scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
# CVIS_CONFIGURE_ARGS: extra `meson setup` options (scripts/trixie/test.sh).
# shellcheck disable=SC2086
scripts/configure.sh "$BUILD" ${CVIS_CONFIGURE_ARGS:-} || { echo "0 passed, 1 failed"; exit 1; }
if ! ninja -C "$BUILD" > "$BUILD.ninja.log" 2>&1; then
  tail -n 60 "$BUILD.ninja.log"
  echo "build failed (full log: $BUILD.ninja.log)"
  echo "0 passed, 1 failed"
  exit 1
fi
meson test -C "$BUILD" --suite "$SUITE" --print-errorlogs --num-processes 2 --timeout-multiplier 3
rc=$?
python3 scripts/test_summary.py "$BUILD/meson-logs/testlog.junit.xml" || rc=1
exit $rc
