#!/usr/bin/env bash
# Cross-builds everything for aarch64 (Jetson) and runs the cpu suite under qemu-user.
#
# Runs in the Debian trixie tree "trixie-arm64" of scripts/trixie/env.sh (made on first use, from
# the "trixie" tree when that exists): GStreamer 1.26
# arm64 -dev packages (multiarch), Debian's aarch64 cross compilers, Debian's CUDA toolkit 12.4
# (x86-64 nvcc, sm_72 and sm_87 SASS + sm_87 PTX) with Debian's arm64 libcudart_static.a, and
# qemu-user as Meson's exe_wrapper. docs/jetson.md says why this toolkit and runtime.
# Ends with the line "N passed, N failed" (the cpu suite, which checks the plugin's fatbin too).
#
# Benchmarks are not built (nothing to run them on under qemu; they are for the GPU host).
# Usage: scripts/jetson/cross-build.sh [BUILD_DIR]          (default: build-aarch64)
# Environment: CVIS_JETSON_ARCHS  SASS list (default 72,87; PTX for the last)
#              CVIS_ENV_DIR       where the trees live (see scripts/trixie/env.sh)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build-aarch64}

if [ -z "${CVIS_IN_TRIXIE:-}" ]; then
  rm -f "$BUILD.result"
  scripts/trixie/env.sh --tree trixie-arm64 --with cuda,arm64 -- env CVIS_IN_TRIXIE=1 scripts/jetson/cross-build.sh "$BUILD"
  rc=$?
  if [ ! -f "$BUILD.result" ]; then   # the tree could not be made: nothing ran
    echo "cross-build: the trixie tree could not be set up (scripts/trixie/env.sh)"
    echo "0 passed, 1 failed"
    exit 1
  fi
  exit $rc
fi

ARCHS=${CVIS_JETSON_ARCHS:-72,87}
fail() { echo "cross-build: $*"; echo "failed" > "$BUILD.result"; echo "0 passed, 1 failed"; exit 1; }

# nvcc 12.4 accepts gcc <= 13 as host compiler: the C/C++ parts use Debian's default cross gcc 14,
# the host side of .cu files g++-13 (both the same libstdc++ ABI).
cat > "$BUILD.cross.ini" <<EOF
[binaries]
c = 'aarch64-linux-gnu-gcc'
cpp = 'aarch64-linux-gnu-g++'
ar = 'aarch64-linux-gnu-gcc-ar'
strip = 'aarch64-linux-gnu-strip'
pkg-config = 'aarch64-linux-gnu-pkg-config'
# nvcc 12.4 and glibc 2.41's aarch64 vector math declarations: see the header (before any other
# include, and also in Meson's sanity check, hence here and not in cuda_args).
cuda = ['/usr/lib/nvidia-cuda-toolkit/bin/nvcc', '-Xcompiler=-include,$PWD/scripts/jetson/nvcc-glibc-aarch64.h']
exe_wrapper = ['qemu-aarch64']

[built-in options]
cuda_ccbindir = '/usr/bin/aarch64-linux-gnu-g++-13'
# nvcc links through g++-13, whose own libstdc++.so is older than what gcc 14 code (ours and
# libgtest.a) needs (__cxa_call_terminate): gcc 14's folder first.
cuda_link_args = ['-L/usr/lib/gcc-cross/aarch64-linux-gnu/14']

[properties]
# Tests that start built programs from a script prefix them with this (tests/tools).
cvis_exe_wrapper = ['qemu-aarch64']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'armv8.2-a'
endian = 'little'
EOF

mode=()
[ -f "$BUILD/build.ninja" ] && mode=(--reconfigure)
if ! meson setup "${mode[@]}" "$BUILD" --cross-file "$BUILD.cross.ini" -Dbuildtype=release \
    -Dcuda=enabled -Dcuda-root=/usr -Dcuda-arch="$ARCHS" -Dbenchmarks=false > "$BUILD.setup.log" 2>&1; then
  tail -n 30 "$BUILD.setup.log"
  fail "meson setup failed (log: $BUILD.setup.log)"
fi
grep -E "CUDA (backends|architectures)" "$BUILD.setup.log" | sed 's/^ */cross-build: /'
if ! ninja -C "$BUILD" > "$BUILD.ninja.log" 2>&1; then
  tail -n 60 "$BUILD.ninja.log"
  fail "build failed (full log: $BUILD.ninja.log)"
fi
file -b "$BUILD/gst/libgstcudavision.so" | sed 's/^/cross-build: plugin: /'

# No binfmt registration is assumed: gst must not spawn (arm64) plugin scanners.
export GST_REGISTRY_FORK=no
# The suite 'slow' (many pipelines or trainings, minutes each under emulation) runs natively in
# the other parts. Tests that re-execute themselves under a resource limit skip with this reason
# (the limit would apply to the emulator, and without binfmt a child cannot exec an arm64 binary).
export CVIS_TEST_EMULATOR=qemu-aarch64
meson test -C "$BUILD" --suite cpu --no-suite slow --print-errorlogs --num-processes 2 --timeout-multiplier 6
rc=$?
echo "done" > "$BUILD.result"
# The suite includes plugin-fatbin (tests/meson.build): cuobjdump finds sm_72/sm_87 SASS and PTX.
python3 scripts/test_summary.py "$BUILD/meson-logs/testlog.junit.xml" || rc=1
exit $rc
