#!/bin/bash
# Builds test_median3d_gpu and bench_median3d against a CPU emulation of CUDA and runs them: the
# real kernels, launchers and median3d_cuda.cpp, with a fake runtime (include/) and one fiber per
# CUDA thread (emu_kernel.hpp). For reviewing kernel indexing and the launch
# sequence without a GPU; not part of the Meson build or of any suite; timings mean nothing.
#   tests/algo/median3d/emu/run.sh ['gtest filter']
#   EMU_BENCH=1 tests/algo/median3d/emu/run.sh 'Methods/*Large*/sliding*'  (also the benchmark)
#   EMU_FLAGS="-fsanitize=address,undefined" tests/algo/median3d/emu/run.sh   (out of bounds, UB)
#   EMU_CCL='*' tests/algo/median3d/emu/run.sh '-*'   (only test_ccl_gpu, cuda/ccl's kernels)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
emu=$root/tests/algo/median3d/emu
out=${EMU_OUT:-/tmp/median3d-emu}
mkdir -p "$out/obj"
flags="-std=c++20 -O2 -g -ffp-contract=off -DCVIS_HAVE_CUDA=1 -I$emu/include -I$root/cuda
  -I$root/cuda/median3d -I$root/tests/common -I$root/tests/algo/median3d
  -DCVIS_TESTDATA_DEFAULT=\"/nonexistent\" -Wno-unknown-pragmas ${EMU_FLAGS:-}"
for k in median3d/median3d_kernels median3d/median3d_kernels_integral median3d/median3d_kernels_output \
         ccl/ccl_kernels; do
  sed -E -e 's/([a-z_]+)<<<([^,]+), ([^,]+), ([^,]+), ([^>]+)>>>\(/emu::launch(\2, \3, \4, \1, /' \
      -e 's/extern __shared__ ([a-z0-9_]+) ([a-z_]+)\[\];/\1* \2 = reinterpret_cast<\1*>(emu::dyn.data());/' \
      "$root/cuda/$k.cu" > "$out/$(basename $k).cpp"
  g++ $flags -I"$root/cuda/$(dirname $k)" -include "$emu/emu_kernel.hpp" -c "$out/$(basename $k).cpp" \
      -o "$out/obj/$(basename $k).o" &
done
wait
srcs="cuda/common/status.cpp cuda/common/image.cpp cuda/common/color.cpp cuda/common/backend.cpp
  cuda/common/cuda/runtime.cpp cuda/common/cuda/upload.cpp cuda/median3d/median3d.cpp
  cuda/median3d/median3d_reference.cpp cuda/median3d/median3d_cpu.cpp cuda/median3d/median3d_cuda.cpp
  cuda/ccl/ccl_cpu.cpp cuda/ccl/ccl_cuda.cpp
  tests/common/test_images.cpp tests/algo/median3d/test_median3d_gpu.cpp"
for s in $srcs; do
  g++ $flags -c "$root/$s" -o "$out/obj/$(basename "$s").o"
done
g++ $flags -c "$root/tests/bench/median3d/bench_median3d.cpp" -o "$out/bench.o"
g++ $flags -I"$root/tests/algo/ccl" -c "$root/tests/algo/ccl/test_ccl_gpu.cpp" -o "$out/test_ccl_gpu.o"
objs=$(ls "$out"/obj/*.o)
libobjs=$(ls "$out"/obj/*.o | grep -v -e test_images -e test_median3d_gpu)
g++ -o "$out/test_median3d_gpu" $objs -lgtest_main -lgtest -lpng -lpthread ${EMU_FLAGS:-}
g++ -o "$out/bench_median3d" $libobjs "$out/bench.o" -lpthread ${EMU_FLAGS:-}
g++ -o "$out/test_ccl_gpu" $libobjs "$out/obj/test_images.cpp.o" "$out/test_ccl_gpu.o" \
  -lgtest_main -lgtest -lpng -lpthread ${EMU_FLAGS:-}
CVIS_REQUIRE_GPU=1 "$out/test_median3d_gpu" --gtest_filter="${1:-*}"
if [ -n "${EMU_CCL:-}" ]; then  # the CUDA labelling (cuda/ccl) against its CPU function
  CVIS_REQUIRE_GPU=1 "$out/test_ccl_gpu" --gtest_filter="$EMU_CCL"
fi
if [ -n "${EMU_BENCH:-}" ]; then  # the benchmark's flow and exact check, on tiny frames
  "$out/bench_median3d" --sizes 37x23:16,64x48:256,33x65:64 --seconds 0.02 --cpu-frames 3
fi
