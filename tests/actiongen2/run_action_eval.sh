#!/usr/bin/env bash
# The action evaluation of docs/evaluation.md for one split: renders the two generators' datasets
# (tests/actiongen's gen_actions and tests/actiongen2's gen_actions2), then `cvis-action eval`
# (as it is, CPU or CUDA backend, default front end and matcher) with both classifiers:
#   prototypes  the nearest selected prototype (what the cudaactionmatch element does)
#   ridge       the tool's ridge regression over the distances to all training candidates
# on three datasets, leave-one-subject-out:
#   g1          generator 1 alone
#   g2          generator 2 alone
#   cross       generator 1's subjects as they are, every generator-2 clip as subject 99: the fold
#               that holds out subject 99 is trained on generator 1 only and tested on generator 2
#               (its line "subject 99: k/n" is the cross-renderer accuracy; the other folds of this
#               dataset are not reported)
# The two classifiers share one distance table per dataset (--distances), so matching runs once.
#
# Usage: tests/actiongen2/run_action_eval.sh dev|eval [OUT] [BACKEND]
#   OUT      default build-eval/actions (ignored by git); BACKEND cpu (default) or cuda
# Environment: SUBJECTS (default 8), SETTINGS (scenarios per subject, default 2), FRAMES (100),
#   GEN, GEN2, ACT: the programs (default build/tests/actiongen/gen_actions,
#   tests/actiongen2/gen_actions2.py, build/gst/tools/cvis-action). Prints one table row per
#   dataset and classifier; logs in OUT/<split>-*.log.
set -euo pipefail
SPLIT=${1:?dev or eval}
OUT=${2:-build-eval/actions}
BACKEND=${3:-cpu}
SUBJECTS=${SUBJECTS:-8}
SETTINGS=${SETTINGS:-2}
FRAMES=${FRAMES:-100}
GEN=${GEN:-build/tests/actiongen/gen_actions}
GEN2=${GEN2:-tests/actiongen2/gen_actions2.py}
ACT=${ACT:-build/gst/tools/cvis-action}
PY=${PY:-/usr/bin/python3}
case "$SPLIT" in
  dev) SEED=1 ;;   # seeds and (generator 2) footage differ between the splits
  eval) SEED=2 ;;
  *) echo "run_action_eval: split must be dev or eval" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
G1=$OUT/g1-$SPLIT G2=$OUT/g2-$SPLIT X=$OUT/cross-$SPLIT
T0=$(date +%s)
if [ ! -f "$G1/.done" ]; then
  "$GEN" "$G1" --subjects "$SUBJECTS" --scenarios "$SETTINGS" --frames "$FRAMES" --size 160x120 \
    --seed "$SEED" --jobs 2 > "$OUT/$SPLIT-gen1.log" 2>&1
  touch "$G1/.done"
fi
if [ ! -f "$G2/.done" ]; then
  "$PY" "$GEN2" "$G2" --subjects "$SUBJECTS" --settings "$SETTINGS" --frames "$FRAMES" --size 160x120 \
    --seed "$SEED" --backgrounds "$SPLIT" > "$OUT/$SPLIT-gen2.log" 2>&1
  touch "$G2/.done"
fi
T1=$(date +%s)
echo "== $SPLIT: datasets rendered ($((T1 - T0)) s): $(find "$G1" -name '*.avi' | wc -l) + $(find "$G2" -name '*.avi' | wc -l) clips"
# The cross dataset: links, generator 2's clips renamed to subject 99 (the original subject and
# setting kept in the name's tail), and the point caches copied under the links' names.
rm -rf "$X" && mkdir -p "$X/cache"
for d in "$G1"/*/; do
  a=$(basename "$d")
  mkdir -p "$X/clips/$a"
  for f in "$d"*.avi; do ln -sf "$(cd "$d" && pwd)/$(basename "$f")" "$X/clips/$a/"; done
done
for d in "$G2"/*/; do
  a=$(basename "$d")
  for f in "$d"*.avi; do
    b=$(basename "$f" .avi)                       # personNN_<action>_dK_uncomp
    n=${b#person}; n=${n%%_*}; k=${b#*_"$a"_d}; k=${k%%_*}
    ln -sf "$(cd "$d" && pwd)/$(basename "$f")" "$X/clips/$a/person99_${a}_d${k}_s${n}.avi"
  done
done
run_eval() {  # name dataset cache classifier
  local name=$1 data=$2 cache=$3 cls=$4 log=$OUT/$SPLIT-$1-$4.log
  local s=$(date +%s)
  /usr/bin/time -f "%e s wall, %U s user, %S s sys" "$ACT" eval "$data" --backend "$BACKEND" \
    --cache "$cache" --distances "$OUT/$SPLIT-$name.dist" --classifier "$cls" --verbose > "$log" 2>&1
  echo "$(( $(date +%s) - s ))" > "$log.secs"
}
for cls in prototypes ridge; do
  run_eval g1 "$G1" "$OUT/cache-g1-$SPLIT" "$cls"
  run_eval g2 "$G2" "$OUT/cache-g2-$SPLIT" "$cls"
done
# Points of the cross dataset: the same clips, so the caches are copied under the new names.
for c in "$OUT/cache-g1-$SPLIT"/*.points; do cp "$c" "$X/cache/"; done
for c in "$OUT/cache-g2-$SPLIT"/*.points; do
  b=$(basename "$c" .points)                      # <action>__personNN_<action>_dK_uncomp.avi
  a=${b%%__*}; f=${b#*__}; f=${f%.avi}
  n=${f#person}; n=${n%%_*}; k=${f#*_"$a"_d}; k=${k%%_*}
  cp "$c" "$X/cache/${a}__person99_${a}_d${k}_s${n}.avi.points"
done
for cls in prototypes ridge; do
  run_eval cross "$X/clips" "$X/cache" "$cls"
done
T2=$(date +%s)
echo "| split | dataset | classifier | accuracy | seconds (this run) |"
echo "| --- | --- | --- | --- | ---: |"
for name in g1 g2 cross; do
  for cls in prototypes ridge; do
    log=$OUT/$SPLIT-$name-$cls.log
    if [ "$name" = cross ]; then
      acc=$(grep '^subject 99:' "$log" | sed 's/^subject 99: \([0-9]*\/[0-9]*\).*/\1/')
      acc="$acc ($(echo "$acc" | awk -F/ '{ printf "%.1f%%", 100 * $1 / $2 }'), gen. 1 -> gen. 2)"
    else
      acc=$(grep '^accuracy' "$log" | sed 's/^accuracy: //')
    fi
    echo "| $SPLIT | $name | $cls | $acc | $(cat "$log.secs") |"
  done
done
echo "== $SPLIT: evaluation $((T2 - T1)) s after rendering; timings: $(grep -h ' s wall' "$OUT"/"$SPLIT"-*.log | tr '\n' ';')"
