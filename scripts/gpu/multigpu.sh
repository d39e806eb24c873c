#!/usr/bin/env bash
# Runs on the GPU host (after scripts/gpu/prepare.sh, .device carried): the checks and the
# measurement of docs/multi-gpu.md, as far as the host's GPUs allow.
#   1. test_multi_device (gpu suite): two devices at once (skipped with one GPU), two pipelines on
#      one device, a context set on the pipeline, an absent device id.
#   2. Several streams in one gst-launch pipeline make one CUDA context ("Created CUDA context"
#      lines of GST_DEBUG=cudacontext:4, two chains on GPU 0).
#   3. bench_streams --gpus COUNTS: the streams round-robin over the GPUs, per-GPU figures and,
#      with several counts, the scaling per doubling of the GPUs.
#   4. One GPU more than present: bench_streams must leave that count out and exit 1.
# Usage: scripts/gpu/multigpu.sh [COUNTS]   (default: 1 and the powers of two up to the GPUs)
#   MGPU_CHAINS (default median3d+cedd,full), MGPU_NS (streams per GPU, default 16,32,64,96),
#   MGPU_WARMUP / MGPU_MEASURE (seconds, default 10 / 20), MGPU_CLIP (default the staged street
#   clip, else $CVIS_TEST_H264), MGPU_TIMEOUT (the bench's limit, default 1800 s).
#   Results: $OUT/multigpu.txt, $OUT/multigpu.tgz.
set -uo pipefail
ROOT=$PWD
OUT=${OUT:-/tmp/out}
R=/tmp/cvis-multigpu
rm -rf "$R" && mkdir -p "$R" "$OUT"
S=$OUT/multigpu.txt
: > "$S"
log() { echo "$*" | tee -a "$S"; }

# 1. The test (run.sh unpacks the bundle and the binaries, and sets the test environment).
CVIS_RESULTS=$R/tests OUT=$R/tests-out bash scripts/gpu/run.sh tests test_multi_device > "$R/tests.log" 2>&1
log "$(grep -E 'rc=' "$R/tests/summary.txt")"
grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|Skipped|needs' "$R/tests/test_multi_device.log" | tee -a "$S"

export GST_BUNDLE_NO_NVENC=1
# shellcheck disable=SC1091
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$ROOT/.device/lib:$LD_LIBRARY_PATH
BIN=/tmp/cvis-bin
D=$ROOT/.device
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
log "GPUs: $GPUS"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader | tee -a "$S"

# 2. One context for the streams of one pipeline.
clip=${CVIS_TEST_H264:-$D/media/test-1080p.mp4}
chain="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec ! cudamedian3d output=frame ! cudacedd ! fakesink sync=false"
# shellcheck disable=SC2086
CUDA_VISIBLE_DEVICES=0 GST_DEBUG=cudacontext:4 timeout 120 gst-launch-1.0 $chain $chain > "$R/contexts.log" 2>&1
log "two streams in one gst-launch pipeline: rc=$?, CUDA contexts created: $(grep -c 'Created CUDA context' "$R/contexts.log") (expected 1)"

# 3. The streams over the GPUs.
counts=${1:-}
if [ -z "$counts" ]; then
  counts=1
  for g in 2 4 8 16; do [ "$g" -le "$GPUS" ] && counts="$counts,$g"; done
fi
street=$D/media/street-1080p30-long.mp4
bclip=${MGPU_CLIP:-$([ -f "$street" ] && echo "$street" || echo "$clip")}
args="--clip $bclip --gpus $counts --chains ${MGPU_CHAINS:-median3d+cedd,full} --ns ${MGPU_NS:-16,32,64,96}
  --warmup ${MGPU_WARMUP:-10} --measure ${MGPU_MEASURE:-20} --budget 1800 --no-ab"
log "bench_streams $args"
# shellcheck disable=SC2086
timeout "${MGPU_TIMEOUT:-1800}" "$BIN/bench_streams" $args --out "$R/bench_streams_gpus.md" > "$R/bench_streams.log" 2>&1
log "bench_streams rc=$?"
grep -vE 'buffers, last|^  (thread|-- tid)|^/' "$R/bench_streams.log" | tail -n 40 | tee -a "$S"

# 4. One GPU more than present.
more=$((GPUS + 1))
timeout 120 "$BIN/bench_streams" --clip "$clip" --gpus "$more" --chains decode --ns 1 --warmup 1 --measure 1 \
  --no-ab --no-profile > "$R/left-out.log" 2>&1
log "bench_streams --gpus $more: rc=$? (expected 1): $(grep -m1 'left out' "$R/left-out.log")"

tar -czf "$OUT/multigpu.tgz" -C "$R" .
