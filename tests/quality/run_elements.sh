#!/usr/bin/env bash
# Runs the segmentation elements through GStreamer on every sequence of the quality corpus
# (tests/quality/corpus/make_corpus.py) and dumps what they output, gzipped, for
# tests/quality/score.py (which may run on another machine: this script needs only GStreamer).
#
# Usage: tests/quality/run_elements.sh CORPUS OUT [cpu|cuda] [CONFIG...]
#   CORPUS  the corpus directory (list.txt and <sequence>/video.mp4 are all it reads)
#   OUT     results: OUT/<config>/<sequence>.mask.xz (GRAY8 frames) or .bgyd.xz (background luma,
#           each frame as its difference from the previous one: bg_luma_delta.py; needs a python3
#           with numpy, else .bg.xz, the 4:2:0 frames as dumped), and OUT/<config>/times.txt
#           (seconds per sequence); xz -1 (masks shrink ~3x more than with gzip), gzip when there
#           is no xz
#   cpu     avdec_h264 ! ELEMENT backend=cpu (system memory; the default)
#   cuda    nvh264dec ! ELEMENT backend=cuda (CUDA memory in, as on the GPU host)
#   CONFIG  NAME=ELEMENT [PROPERTY=VALUE...] (default: the configurations below); a NAME ending in
#           -bg dumps output=background, every other one output=mask.
# Environment: ONLY=a,b runs only those sequences.
#
# Example (GPU host, after scripts/gpu/prepare.sh; the corpus carried in .device/quality):
#   bash tests/quality/run_elements.sh .device/quality/corpus $OUT/quality cuda
set -uo pipefail
CORPUS=${1:?corpus directory}
OUT=${2:?output directory}
BACKEND=${3:-cpu}
shift 3 2>/dev/null || shift $#
CONFIGS=("$@")
if [ ${#CONFIGS[@]} -eq 0 ]; then
  CONFIGS=("bgsub=cudabgsub" "median3d=cudamedian3d" "median3d-bg=cudamedian3d")
fi
case "$BACKEND" in
  cpu) DEC="avdec_h264" ;;
  cuda) DEC="nvh264dec" ;;
  *) echo "run_elements: backend must be cpu or cuda" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
# A python3 with numpy for bg_luma_delta.py (the GPU host's python3; Debian's /usr/bin/python3 here).
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null && "$p" -c "import numpy" 2> /dev/null; then PY=$p; break; fi
done
if command -v xz > /dev/null; then ZIP=(xz -1 -T0); ZEXT=xz; else ZIP=(gzip -1); ZEXT=gz; fi
mapfile -t SEQS < "$CORPUS/list.txt" # read once: the corpus may be rewritten meanwhile
fail=0
for cfg in "${CONFIGS[@]}"; do
  name=${cfg%%=*}
  element=${cfg#*=}
  mkdir -p "$OUT/$name"
  touch "$OUT/$name/times.txt"
  for line in "${SEQS[@]}"; do
    read -r seq w h n fps <<< "$line"
    [ -n "$seq" ] || continue
    case ",${ONLY:-$seq}," in *",$seq,"*) ;; *) continue ;; esac
    if [ "${name%-bg}" != "$name" ]; then
      file="$OUT/$name/$seq.bg"
      if [ "$BACKEND" = cuda ]; then
        tail="$element backend=cuda output=background ! cudadownload ! video/x-raw,format=NV12"
      else
        tail="$element backend=cpu output=background ! video/x-raw,format=I420"
      fi
    else
      file="$OUT/$name/$seq.mask"
      tail="$element backend=$BACKEND output=mask ! video/x-raw,format=GRAY8"
    fi
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    if ! gst-launch-1.0 -q filesrc location="$CORPUS/$seq/video.mp4" ! qtdemux ! h264parse ! $DEC \
        ! $tail ! filesink location="$file" > "$file.log" 2>&1; then
      echo "run_elements: $name on $seq failed:" >&2
      tail -n 5 "$file.log" >&2
      fail=1
      continue
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
    rm -f "$file.xz" "$file.gz" "${file}yd.xz" "${file}yd.gz"
    if [ "${file%.bg}" != "$file" ] && [ -n "$PY" ]; then
      # Background: luma deltas (a few MB instead of hundreds: the GPU host returns <= 16 MiB a file).
      if ! "$PY" "$HERE/bg_luma_delta.py" "$w" "$h" "$n" < "$file" | "${ZIP[@]}" -c > "${file}yd.$ZEXT"; then
        echo "run_elements: $name on $seq: bg_luma_delta failed" >&2
        rm -f "${file}yd.$ZEXT"
        fail=1
        continue
      fi
      rm -f "$file"
    else
      "${ZIP[@]}" "$file"
    fi
    echo "$seq $secs" >> "$OUT/$name/times.txt"
    echo "$name $seq ${w}x$h $n frames: $secs s"
    rm -f "$file.log"
  done
done
exit $fail
