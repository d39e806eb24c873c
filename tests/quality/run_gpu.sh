#!/usr/bin/env bash
# GPU host: the quality corpus through the elements with the CUDA backend (nvh264dec, CUDA memory
# in), in the GStreamer bundle that scripts/gpu/prepare.sh staged, the dumps as one tar cut into
# 15 MiB parts $OUT/quality.tar.part0, part1, ... (the host returns at most 8 files of 16 MiB, 64 MiB
# in all; cudamedian3d's 1080p backgrounds: ~20 MB, scaled from street-a's 1.4 MB). Score them here:
#   mkdir -p q && cat quality.tar.part* | tar -xf - -C q && score.py build-quality/corpus q/quality
# Needs .device (prepare.sh) and .device/quality (tests/quality/stage_gpu.sh) carried.
# Usage: bash tests/quality/run_gpu.sh [CONFIG...]   (CONFIG as run_elements.sh; default: both
#        elements' masks with their default properties and cudamedian3d's background, whose
#        luma error against the clean background score.py reports as "background MAE")
set -uo pipefail
ROOT=$PWD
D=$ROOT/.device
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
[ -d "$D/quality/corpus" ] || { echo "run_gpu: no $D/quality/corpus (tests/quality/stage_gpu.sh)"; exit 1; }
tar -xJf "$D/gst-bundle.tar.xz" -C /tmp
export GST_BUNDLE_NO_NVENC=1
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ $# -gt 0 ] || set -- "bgsub=cudabgsub" "median3d=cudamedian3d" "median3d-bg=cudamedian3d"
R=/tmp/quality
rm -rf "$R"
start=$(date +%s)
bash "$ROOT/tests/quality/run_elements.sh" "$D/quality/corpus" "$R" cuda "$@"
rc=$?
echo "run_gpu: rc=$rc in $(( $(date +%s) - start )) s; commit $(cat "$D/COMMIT" 2>/dev/null)"
# One tar stream cut into 15 MiB parts: the host returns at most 8 files of 16 MiB, 64 MiB in all.
split -b 15M -d -a 1 <(tar -cf - -C /tmp quality) "$OUT/quality.tar.part"
ls -la "$OUT"/quality.tar.part*
parts=$(ls "$OUT"/quality.tar.part* | wc -l)
total=$(cat "$OUT"/quality.tar.part* | wc -c)
if [ "$parts" -gt 8 ] || [ "$total" -gt $((64 * 1024 * 1024)) ]; then
  echo "run_gpu: $parts parts, $total bytes: over what comes back; run fewer configurations or ONLY=<sequences>"
  rc=1
fi
exit $rc
