# The actions part of scripts/demo.sh (sourced: OUTDIR, B, PY and ROWS come from there).
# A KTH-like dataset rendered by tests/actiongen (6 actions, 4 subjects, 100 frames of 160x120),
# a dictionary trained by cvis-action on subjects 1-3, then cudaactionmatch on subject 4's clips:
# the recognised action of every block drawn by cudaroioverlay on the block's last frame.
AC=$OUTDIR/actions
GEN=${CVIS_GEN_ACTIONS:-build/tests/actiongen/gen_actions}
ACT=${CVIS_ACTION:-build/gst/tools/cvis-action}
if [ ! -x "$GEN" ] || [ ! -x "$ACT" ] || ! gst-inspect-1.0 cudaactionmatch >/dev/null 2>&1; then
  echo "== actions: needs $GEN, $ACT and the cudaactionmatch element; skipped"
  return 0
fi
mkdir -p "$AC"
echo "== actions: rendering 4 subjects x 6 actions (100 frames, 160x120) into $AC/data"
"$GEN" "$AC/data" --subjects 4 --scenarios 1 --frames 100 --size 160x120 --jobs 2 >/dev/null
for d in "$AC"/data/*/; do
  a=$(basename "$d")
  mkdir -p "$AC/train/$a"
  ln -sf "$(cd "$d" && pwd)"/person0[123]_* "$AC/train/$a/"
done
echo "== actions: cvis-action train (subjects 1-3) -> $AC/actions.cvad"
"$ACT" train "$AC/train" -o "$AC/actions.cvad" --backend "$B" 2>&1 | tail -n 1
CELLS=""
for a in walking boxing handwaving jogging; do
  clip=$AC/data/$a/person04_${a}_d1_uncomp.avi
  rm -rf "$AC/frames" && mkdir -p "$AC/frames"
  # Blocks of 60 frames every 30 end at frames 59 and 89, and the last block at 99 (EOS).
  # NV12 end to end: GStreamer 1.22's videoconvert drops the ROI's param structures (the label).
  gst-launch-1.0 -m filesrc location="$clip" ! decodebin ! videoconvert \
      ! video/x-raw,format=NV12 ! cudaactionmatch backend="$B" model-location="$AC/actions.cvad" \
      ! cudaroioverlay backend="$B" types=action \
      ! videoconvert ! pngenc ! multifilesink location="$AC/frames/%04d.png" |
    grep -o 'label=(string)[a-z]*\|first-frame=(guint64)[0-9]*\|last-frame=(guint64)[0-9]*' |
    sed 's/.*)//' | paste -d' ' - - - |
    while read -r label first last; do echo "$a (subject 4) frames $first-$last: $label"; done |
    tee -a "$AC/results.txt"
  for f in 0059 0089 0099; do
    [ -f "$AC/frames/$f.png" ] && cp "$AC/frames/$f.png" "$AC/$a-$f.png"
  done
  CELLS="$CELLS,$AC/$a-0089.png@$a f89"
done
rm -rf "$AC/frames" "$AC/train"
ROWS+=("cudaactionmatch|${CELLS#,}")
