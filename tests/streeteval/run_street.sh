#!/usr/bin/env bash
# The street-chain evaluation of docs/evaluation.md for one split: makes the sequences
# (make_street.py), runs the chain on each (run_chain.py, every element at its defaults), keeps a
# few overlay frames as PNG, and scores the dumps (score_street.py).
# Usage: tests/streeteval/run_street.sh dev|eval|all [OUT] [cpu|cuda]
#   OUT default build-eval (sequences in OUT/street, dumps and PNGs in OUT/street-results-BACKEND)
# Needs the plugin and the GstCvis typelib of build/gst (or GST_PLUGIN_PATH etc. set already).
set -euo pipefail
SPLIT=${1:?dev, eval or all}
OUT=${2:-build-eval}
BACKEND=${3:-cpu}
PY=${PY:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$HERE/../../build}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$BUILD/gst} GI_TYPELIB_PATH=${GI_TYPELIB_PATH:-$BUILD/gst}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$BUILD/gst}
"$PY" "$HERE/make_street.py" --out "$OUT/street" --split "$SPLIT"
R=$OUT/street-results-$BACKEND
for d in "$OUT"/street/*/; do
  name=$(basename "$d")
  case "$SPLIT" in all) ;; *) [ "${name%%-*}" = "$SPLIT" ] || continue ;; esac
  [ -f "$R/$name/run.json" ] && continue
  # Overlay snapshots: a few frames spread over the sequence.
  n=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['frames'])" "$d/meta.json")
  # FRAMES1080 (default: all) limits the 1920x1080 sequences (the CPU backend: seconds a frame).
  lim=()
  if [ "${name%-1080}" != "$name" ] && [ -n "${FRAMES1080:-}" ]; then lim=(--frames "$FRAMES1080"); n=$FRAMES1080; fi
  "$PY" "$HERE/run_chain.py" "$d" "$R/$name" --backend "$BACKEND" \
    --png "$((n / 4)),$((n / 2)),$((3 * n / 4))" "${lim[@]}"
done
"$PY" "$HERE/score_street.py" "$OUT/street" "$R" --split "$SPLIT" --markdown "$R/score-$SPLIT.md" \
  --json "$R/score-$SPLIT.json" --layout "$BUILD/tests/streeteval/overlay_layout"
