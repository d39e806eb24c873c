#!/usr/bin/env bash
# Soak test (not part of CI): hours of frames through the full chain (decode -> cudamedian3d ->
# cudarcdtrack when the plugin has it -> cudacedd -> cudaroioverlay) in several streams of one
# process, looping a generated clip. Host RSS and this process's GPU memory are sampled; the run
# fails when either grows (more than 32 MiB host / 16 MiB GPU from the sample at 10% of the run to
# the last), when frames stop flowing, or on any element error. GPU (nvh264dec, CUDA memory) when
# one is usable, else the CPU reference (avdec_h264, backend=cpu; smaller frames).
# Usage: scripts/soak.sh [--minutes M (default 120)] [--streams N (default 8; 2 on the CPU)]
#                        [--sample S (default 30)] [--backend auto|cpu|cuda]
# Writes soak-output/soak-<time>.md (samples, verdict) and .log; exit status 0 only when flat.
# Needs a build (build/, or BENCH_STREAMS=path) and the plugin on GST_PLUGIN_PATH (default build/gst).
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=120 STREAMS="" SAMPLE=30 BACKEND=auto
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) MINUTES=$2; shift ;;
    --streams) STREAMS=$2; shift ;;
    --sample) SAMPLE=$2; shift ;;
    --backend) BACKEND=$2; shift ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
  shift
done
BIN=${BENCH_STREAMS:-build/tests/bench/streams/bench_streams}
[ -x "$BIN" ] || { echo "soak: $BIN not built (ninja -C build)" >&2; exit 2; }
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$PWD/build/gst}
GPU=0
if [ "$BACKEND" != cpu ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1 &&
    gst-launch-1.0 -q videotestsrc num-buffers=1 ! cudaroioverlay backend=cuda ! fakesink \
      >/dev/null 2>&1; then
  GPU=1
fi
[ "$BACKEND" = cuda ] && [ $GPU = 0 ] && { echo "soak: --backend cuda but no usable GPU" >&2; exit 1; }
mkdir -p .cache/soak soak-output
if [ $GPU = 1 ]; then
  CLIP=.cache/soak/clip-1080p.mp4 ARGS=() STREAMS=${STREAMS:-8}
  [ -s "$CLIP" ] || scripts/make-clip.sh "$CLIP" 1920 1080 150
else
  CLIP=.cache/soak/clip-640x360.mp4 ARGS=(--decoder avdec_h264 --element-props backend=cpu)
  STREAMS=${STREAMS:-2}
  [ -s "$CLIP" ] || scripts/make-clip.sh "$CLIP" 640 360 150
fi
OUT=soak-output/soak-$(date +%Y%m%d-%H%M%S)
echo "soak: $STREAMS streams, $MINUTES min, $([ $GPU = 1 ] && echo GPU || echo CPU reference); $OUT.md"
"$BIN" --clip "$CLIP" --soak $((MINUTES * 60)) --sample "$SAMPLE" --ns "$STREAMS" "${ARGS[@]}" \
  --out "$OUT.md" 2>&1 | tee "$OUT.log"
exit "${PIPESTATUS[0]}"
