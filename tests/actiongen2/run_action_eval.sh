#!/usr/bin/env bash
# The action evaluation of docs/evaluation.md for one split: renders the two generators' datasets
# (tests/actiongen's gen_actions and tests/actiongen2's gen_actions2), then `cvis-action` as it is
# (default front end, matcher and classifiers' settings; CPU or CUDA backend):
#   g1, g2     leave-one-subject-out within generator 1 and within generator 2, with both
#              classifiers: prototypes (the nearest selected prototype: what the cudaactionmatch
#              element does) and ridge (the tool's ridge regression over the distances to all
#              training candidates); one distance table per dataset, shared by the two
#   cross      trained on generator 1, tested on generator 2: `cvis-action train` on g1 (its
#              distance table reused) writes a dictionary, and the cudaactionmatch element
#              classifies every generator-2 clip with it (element_eval.py: its blocks vote)
#   element    the element with ridge dictionaries (`cvis-action train --classifier ridge`):
#              leave-one-subject-out within generator 1 (a dictionary per held-out subject,
#              `train --hold-out S` from generator 1's distance table; the element on that
#              subject's clips) and across renderers (trained on all of generator 1, the element on
#              every generator-2 clip); element_eval.py takes a clip's last block's label
#   ELEMENT_ONLY=1 runs only the element parts (cross with both dictionaries, ridge LOSO); the
#              within-generator tool evaluations are skipped (generator 1's table is still made)
#   CROSS_RIDGE=1 adds the ridge classifier across renderers: generator 1's subjects and every
#              generator-2 clip as one more subject (99), leave-one-subject-out; the fold that
#              holds out subject 99 is trained on generator 1 alone (its "subject 99" line). It
#              matches every clip of both against every candidate of both (4x the work of g1 + g2).
#
# Usage: tests/actiongen2/run_action_eval.sh dev|eval [OUT] [BACKEND]
#   OUT default build-eval/actions (ignored by git); BACKEND cpu (default) or cuda
# Environment: SUBJECTS (default 8), SETTINGS (scenarios per subject, default 1), FRAMES (100),
#   GEN, GEN2, ACT: the programs. Logs: OUT/<split>-*.log; a table on stdout.
set -euo pipefail
SPLIT=${1:?dev or eval}
OUT=${2:-build-eval/actions}
BACKEND=${3:-cpu}
SUBJECTS=${SUBJECTS:-8}
SETTINGS=${SETTINGS:-1}
FRAMES=${FRAMES:-100}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$HERE/../../build}
GEN=${GEN:-$BUILD/tests/actiongen/gen_actions}
GEN2=${GEN2:-$HERE/gen_actions2.py}
ACT=${ACT:-$BUILD/gst/tools/cvis-action}
PY=${PY:-/usr/bin/python3}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$BUILD/gst}
case "$SPLIT" in
  dev) SEED=1 ;;   # seeds and (generator 2) footage and clothes differ between the splits
  eval) SEED=2 ;;
  *) echo "run_action_eval: split must be dev or eval" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
G1=$OUT/g1-$SPLIT-s$SUBJECTS-k$SETTINGS G2=$OUT/g2-$SPLIT-s$SUBJECTS-k$SETTINGS
TIME=(/usr/bin/time -f "%e s wall, %U s user, %S s sys")
if [ ! -f "$G1/.done" ]; then
  "${TIME[@]}" "$GEN" "$G1" --subjects "$SUBJECTS" --scenarios "$SETTINGS" --frames "$FRAMES" \
    --size 160x120 --seed "$SEED" --jobs 2 > "$OUT/$SPLIT-gen1.log" 2>&1
  touch "$G1/.done"
fi
if [ ! -f "$G2/.done" ]; then
  "${TIME[@]}" "$PY" "$GEN2" "$G2" --subjects "$SUBJECTS" --settings "$SETTINGS" --frames "$FRAMES" \
    --size 160x120 --seed "$SEED" --backgrounds "$SPLIT" > "$OUT/$SPLIT-gen2.log" 2>&1
  touch "$G2/.done"
fi
run_eval() {  # name dataset classifier [extra options]
  local name=$1 data=$2 cls=$3 log=$OUT/$SPLIT-$1-$3.log
  shift 3
  "${TIME[@]}" "$ACT" eval "$data" --backend "$BACKEND" --cache "$OUT/cache-$SPLIT-$name" \
    --distances "$OUT/$SPLIT-$name.dist" --classifier "$cls" --verbose "$@" > "$log" 2>&1
}
ELEMENT_ONLY=${ELEMENT_ONLY:-0}
if [ "$ELEMENT_ONLY" != 1 ]; then
  # The two within-generator evaluations at once (two cores); ridge reuses the distance tables.
  run_eval g1 "$G1" prototypes &
  run_eval g2 "$G2" prototypes &
  wait
  run_eval g1 "$G1" ridge
  run_eval g2 "$G2" ridge
fi
# Across renderers, the element's way: a dictionary from generator 1, the element on generator 2.
"${TIME[@]}" "$ACT" train "$G1" -o "$OUT/$SPLIT-g1.cvad" --backend "$BACKEND" --cache "$OUT/cache-$SPLIT-g1" \
  --distances "$OUT/$SPLIT-g1.dist" > "$OUT/$SPLIT-train-g1.log" 2>&1
"${TIME[@]}" "$PY" "$HERE/element_eval.py" "$OUT/$SPLIT-g1.cvad" "$G2" --backend "$BACKEND" --verbose \
  > "$OUT/$SPLIT-cross-element.log" 2>&1
# The element with ridge dictionaries: across renderers, then leave-one-subject-out on generator 1.
train_ridge() {  # dict [extra options]
  local dict=$1
  shift
  "$ACT" train "$G1" -o "$dict" --classifier ridge --backend "$BACKEND" --cache "$OUT/cache-$SPLIT-g1" \
    --distances "$OUT/$SPLIT-g1.dist" "$@"
}
train_ridge "$OUT/$SPLIT-g1-ridge.cvad" > "$OUT/$SPLIT-train-g1-ridge.log" 2>&1
"${TIME[@]}" "$PY" "$HERE/element_eval.py" "$OUT/$SPLIT-g1-ridge.cvad" "$G2" --backend "$BACKEND" \
  --verbose > "$OUT/$SPLIT-cross-element-ridge.log" 2>&1
LOSO=$OUT/$SPLIT-g1-element-ridge.log
: > "$LOSO"
for s in $(seq 1 "$SUBJECTS"); do
  train_ridge "$OUT/$SPLIT-g1-ridge-s$s.cvad" --hold-out "$s" >> "$LOSO" 2>&1
  "${TIME[@]}" "$PY" "$HERE/element_eval.py" "$OUT/$SPLIT-g1-ridge-s$s.cvad" "$G1" --subject "$s" \
    --backend "$BACKEND" --verbose > "$OUT/$SPLIT-g1-element-ridge-s$s.log" 2>&1
  echo "subject $s: $(grep '^accuracy' "$OUT/$SPLIT-g1-element-ridge-s$s.log")" >> "$LOSO"
done
if [ "${CROSS_RIDGE:-0}" = 1 ]; then
  X=$OUT/cross-$SPLIT
  rm -rf "$X" && mkdir -p "$X/clips" "$OUT/cache-$SPLIT-cross"
  for d in "$G1"/*/; do
    a=$(basename "$d")
    mkdir -p "$X/clips/$a"
    for f in "$d"*.avi; do ln -sf "$(cd "$d" && pwd)/$(basename "$f")" "$X/clips/$a/"; done
    cp "$OUT/cache-$SPLIT-g1/${a}__"*.points "$OUT/cache-$SPLIT-cross/" 2> /dev/null || true
  done
  for d in "$G2"/*/; do
    a=$(basename "$d")
    for f in "$d"*.avi; do
      b=$(basename "$f" .avi) # personNN_<action>_dK_uncomp
      n=${b#person}; n=${n%%_*}; k=${b#*_"$a"_d}; k=${k%%_*}
      ln -sf "$(cd "$d" && pwd)/$(basename "$f")" "$X/clips/$a/person99_${a}_d${k}_s${n}.avi"
      c=$OUT/cache-$SPLIT-g2/${a}__${b}.points
      [ -f "$c" ] && cp "$c" "$OUT/cache-$SPLIT-cross/${a}__person99_${a}_d${k}_s${n}.points"
    done
  done
  run_eval cross "$X/clips" ridge
fi
echo "| split | dataset | classifier | accuracy | wall / user / sys (this run) |"
echo "| --- | --- | --- | --- | --- |"
if [ "$ELEMENT_ONLY" != 1 ]; then
  for name in g1 g2; do
    for cls in prototypes ridge; do
      log=$OUT/$SPLIT-$name-$cls.log
      echo "| $SPLIT | $name | $cls | $(grep '^accuracy' "$log" | sed 's/^accuracy: //') | $(grep ' s wall' "$log") |"
    done
  done
fi
# The element's leave-one-subject-out: the folds' correct clips over all clips.
loso=$(sed -n 's/^subject [0-9]*: accuracy: \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' "$LOSO" |
  awk '{ok += $1; n += $2} END {if (n) printf "%d/%d (%.1f%%)", ok, n, 100 * ok / n}')
echo "| $SPLIT | g1 | ridge (element, LOSO) | $loso | $(awk '/ s wall/ {w += $1; n++} END {printf "%.0f s wall, %d folds", w, n}' "$OUT/$SPLIT"-g1-element-ridge-s*.log) |"
for cls in prototypes ridge; do
  log=$OUT/$SPLIT-cross-element.log
  [ "$cls" = ridge ] && log=$OUT/$SPLIT-cross-element-ridge.log
  echo "| $SPLIT | g1 -> g2 | $cls (element) | $(grep '^accuracy' "$log" | sed 's/^accuracy: //;s/ in .*//') | $(grep ' s wall' "$log") |"
done
if [ "${CROSS_RIDGE:-0}" = 1 ]; then
  log=$OUT/$SPLIT-cross-ridge.log
  echo "| $SPLIT | g1 -> g2 | ridge | $(grep '^subject 99:' "$log" | sed 's/^subject 99: //') | $(grep ' s wall' "$log") |"
fi
