#!/bin/bash
# Builds test_cedd_gpu and bench_cedd against a CPU emulation of CUDA (fake runtime, kernels run on
# std::threads with a barrier for __syncthreads) and runs them. Slow (one OS thread per CUDA thread):
# meant for reviewing kernel and launch logic without a GPU, not for timings (events report 1 ms).
#   tests/algo/cedd/emu/run.sh [gtest filter]
#   EMU_FLAGS="-fsanitize=address,undefined" tests/algo/cedd/emu/run.sh   (out-of-bounds, UB)
#   EMU_FLAGS="-fsanitize=thread" tests/algo/cedd/emu/run.sh              (shared-memory races)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
emu=$root/tests/algo/cedd/emu
out=${EMU_OUT:-/tmp/cedd-emu}
mkdir -p "$out/obj"
testdata=${CVIS_TESTDATA:-$root/tests/data}
flags="-std=c++20 -O2 -ffp-contract=off -DCVIS_HAVE_CUDA=1 -I$emu/include -I$root/cuda
  -I$root/tests/common -I$root/tests/algo/cedd -DCVIS_TESTDATA_DEFAULT=\"$testdata\" -Wno-unknown-pragmas ${EMU_FLAGS:-}"
# The kernels' <<<grid, block, 0, stream>>> launches become emu::launch(grid, block, kernel, ...).
sed -E 's/([a-z_]+)<<<([^,]+), ([^,]+), 0, stream>>>\(/emu::launch(\2, \3, \1, /' \
  "$root/cuda/cedd/cedd_kernels.cu" > "$out/kernels_emu.cpp"
g++ $flags -include "$emu/emu_kernel.hpp" -c "$out/kernels_emu.cpp" -o "$out/obj/kernels.o"
lib="cuda/common/status.cpp cuda/common/image.cpp cuda/common/color.cpp cuda/common/backend.cpp
  cuda/common/cuda/runtime.cpp cuda/common/cuda/upload.cpp cuda/cedd/cedd.cpp cuda/cedd/cedd_cpu.cpp
  cuda/cedd/cedd_cuda.cpp"
for s in $lib; do g++ $flags -c "$root/$s" -o "$out/obj/lib_$(basename "$s").o"; done
for s in tests/common/test_images.cpp tests/algo/cedd/cedd_test_util.cpp tests/algo/cedd/test_cedd_gpu.cpp; do
  g++ $flags -c "$root/$s" -o "$out/obj/test_$(basename "$s").o"
done
g++ $flags -c "$root/tests/bench/cedd/bench_cedd.cpp" -o "$out/obj/bench.o"
g++ -o "$out/test_cedd_gpu" "$out"/obj/kernels.o "$out"/obj/lib_*.o "$out"/obj/test_*.o -lgtest_main -lgtest -lpng -lpthread ${EMU_FLAGS:-}
g++ -o "$out/bench_cedd" "$out"/obj/kernels.o "$out"/obj/lib_*.o "$out/obj/bench.o" -lpthread ${EMU_FLAGS:-}
CVIS_REQUIRE_GPU=1 "$out/test_cedd_gpu" --gtest_filter="${1:-*}"
"$out/bench_cedd" --quick --sizes 64x48,200x120,37x23 --batch 9
