#!/usr/bin/env bash
# Runs on the GPU host (after scripts/gpu/prepare.sh, .device carried): Nsight Compute over one
# stream of bench_streams, kernels timed one at a time (--clock-control none), and a table per
# kernel: launches, time, instructions, achieved occupancy, registers, what limits the blocks per
# SM, DRAM bytes. The instructions and the occupancy say what a kernel costs the SMs when many
# streams share them, which the times of one stream (latency-bound small grids) do not.
# Usage: PROFILE_CHAINS="full;cudabgsub output=frame ! ..." bash scripts/gpu/profile.sh
#   each entry a bench_streams chain name (full, bgsub, ...) or a gst-launch chain (--chain);
#   PROFILE_SKIP / PROFILE_COUNT: launches skipped (warm-up) and profiled (default 4000 / 900).
# Results: $OUT/profile-<k>.csv (raw) and $OUT/profile.txt (tables).
set -uo pipefail
ROOT=$PWD; D=$ROOT/.device
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BIN=/tmp/cvis-bin
if [ ! -x "$BIN/bench_streams" ]; then
  tar -xJf "$D/gst-bundle.tar.xz" -C /tmp
  rm -rf "$BIN" && mkdir -p "$BIN" && tar -xJf "$D/bin.tar.xz" -C "$BIN" --strip-components=1
fi
export GST_BUNDLE_NO_NVENC=1
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
METRICS=gpu__time_duration.sum,sm__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS=$METRICS,launch__registers_per_thread,launch__occupancy_limit_registers
METRICS=$METRICS,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
METRICS=$METRICS,launch__grid_size,launch__block_size,dram__bytes_read.sum,dram__bytes_write.sum
CLIP=$D/media/street-1080p30-long.mp4
IFS=';' read -ra chains <<< "${PROFILE_CHAINS:-full}"
k=0
for c in "${chains[@]}"; do
  k=$((k + 1))
  case "$c" in
    *'!'* | *=*) sel=(--chain "$c") ;;
    *) sel=(--chains "$c") ;;
  esac
  echo "== chain $k: $c" | tee -a "$OUT/profile.txt"
  timeout "${PROFILE_TIMEOUT:-240}" "$NCU" --clock-control none --target-processes all \
    --launch-skip "${PROFILE_SKIP:-4000}" --launch-count "${PROFILE_COUNT:-900}" \
    --metrics "$METRICS" --csv --page raw \
    "$BIN/bench_streams" --clip "$CLIP" "${sel[@]}" --ns 1 --warmup 3 --measure 4 --no-ab \
    > "$OUT/profile-$k.csv" 2> "$OUT/profile-$k.err"
  echo "rc=$?" >> "$OUT/profile.txt"
  python3 "$ROOT/scripts/gpu/profile_table.py" "$OUT/profile-$k.csv" >> "$OUT/profile.txt" 2>&1
done
cat "$OUT/profile.txt"
