#!/usr/bin/env bash
# GPU host: the quality corpus through the elements with the CUDA backend (nvh264dec, CUDA memory
# in), in the GStreamer bundle that scripts/gpu/prepare.sh staged, masks into $OUT/quality.tar
# (score them here: tar -xf quality.tar; score.py build-quality/corpus quality).
# Needs .device (prepare.sh) and .device/quality (tests/quality/stage_gpu.sh) carried.
# Usage: bash tests/quality/run_gpu.sh [CONFIG...]   (CONFIG as run_elements.sh; default: both
#        elements with their default properties, masks only)
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
[ $# -gt 0 ] || set -- "bgsub=cudabgsub" "median3d=cudamedian3d"
R=/tmp/quality
rm -rf "$R"
start=$(date +%s)
bash "$ROOT/tests/quality/run_elements.sh" "$D/quality/corpus" "$R" cuda "$@"
rc=$?
echo "run_gpu: rc=$rc in $(( $(date +%s) - start )) s; commit $(cat "$D/COMMIT" 2>/dev/null)"
tar -cf "$OUT/quality.tar" -C /tmp quality
ls -la "$OUT/quality.tar"
exit $rc
