# The street part of scripts/demo.sh (sourced: OUTDIR, B, GPU, CLI and ROWS come from there).
# Real footage (opencv-doc's vtest.avi as H.264) decoded through GStreamer: cudamedian3d motion
# blobs -> cudarcdtrack tracks of the blobs (when the plugin has the element) -> CEDD of every box
# into an index -> cudaroioverlay -> an annotated mp4 and PNG snapshots; then a search of the index
# with a crop of one person.
ST=$OUTDIR/street
mkdir -p "$ST"
if ! CLIP=$(scripts/get-street-clip.sh .cache/demo); then
  echo "== street: no clip (see above); skipped"
  return 0
fi
# The CPU reference takes about 0.7 s per frame for this chain on two cores (the tracker's lost
# targets search whole frames): without a GPU only the first CVIS_DEMO_STREET_FRAMES frames
# (default 200, 20 s) are processed, with snapshots every 4 s instead of 8.
if [ $GPU = 1 ]; then
  FRAMES=${CVIS_DEMO_STREET_FRAMES:--1} PERIOD=8 SNAPS="02 04 06 08" PICK=400
else
  FRAMES=${CVIS_DEMO_STREET_FRAMES:-200} PERIOD=4 SNAPS="01 02 03 04" PICK=$(( ${CVIS_DEMO_STREET_FRAMES:-200} / 2 ))
fi
LIMIT="identity eos-after=$FRAMES"
echo "== street: $CLIP (768x576, 10 fps, 795 frames; $([ "$FRAMES" -lt 0 ] && echo all || echo "the first $FRAMES") processed)"
if [ $GPU = 1 ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  DECODE="filesrc location=$CLIP ! qtdemux ! h264parse ! nvh264dec ! $LIMIT"
  DOWN="cudadownload !"
else
  DECODE="filesrc location=$CLIP ! qtdemux ! h264parse ! avdec_h264 ! $LIMIT ! videoconvert ! video/x-raw,format=NV12"
  DOWN=""
fi
# Tracks when cudarcdtrack is in the plugin: the boxes the index and the search use.
TRACK="" KIND=foreground
if gst-inspect-1.0 cudarcdtrack >/dev/null 2>&1; then
  TRACK="! cudarcdtrack backend=$B init-roi-type=foreground"
  KIND=track
fi
# The motion detector at its defaults; blobs of 150 pixels or more.
CHAIN="cudamedian3d backend=$B output=frame min-blob-area=150 $TRACK \
  ! cudacedd backend=$B regions=rois index-location=$ST/street.db stream-name=street"
SNAP="videorate drop-only=true ! video/x-raw,framerate=1/$PERIOD ! videoconvert ! pngenc ! multifilesink"
ENCODE="videoconvert ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location=$ST/street-annotated.mp4"
rm -f "$ST"/street.db*
echo "   $DECODE ! $CHAIN $([ -n "$TRACK" ] && echo "(tracks: $TRACK)") ! cudaroioverlay"
if [ -n "$TRACK" ]; then
  # Two overlays: the blobs (mask and boxes) and the tracks (boxes and trails).
  gst-launch-1.0 -q $DECODE ! $CHAIN ! tee name=a \
    a. ! queue ! cudaroioverlay backend=$B types=foreground ! $DOWN videoconvert \
      ! $SNAP location="$ST/blobs-%02d.png" \
    a. ! queue ! cudaroioverlay backend=$B types=track mask=false ! $DOWN videoconvert ! tee name=t \
    t. ! queue ! $ENCODE \
    t. ! queue ! $SNAP location="$ST/tracks-%02d.png" >/dev/null
else
  gst-launch-1.0 -q $DECODE ! $CHAIN ! cudaroioverlay backend=$B ! $DOWN videoconvert ! tee name=t \
    t. ! queue ! $ENCODE \
    t. ! queue ! $SNAP location="$ST/blobs-%02d.png" >/dev/null
fi
gst-launch-1.0 -q filesrc location="$CLIP" ! decodebin ! $LIMIT ! videoconvert ! $SNAP \
  location="$ST/input-%02d.png" >/dev/null
STREET_MP4=$ST/street-annotated.mp4

# Search: a person-shaped box near the middle of the clip, cropped from the decoded frame, against
# every box of the index; the nearest are mostly the same person in nearby frames.
read -r QF QX QY QW QH < <("$PY" scripts/demo_tools.py pick "$ST/street.db" $KIND $PICK)
"$PY" scripts/demo_tools.py crop "$CLIP" "$ST/query.png" "$QF" "$QX" "$QY" "$QW" "$QH"
echo "== street: searching $("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM descriptors").fetchone()[0])' "$ST/street.db") boxes with a crop of frame $QF (box $QX,$QY ${QW}x$QH, $ST/query.png)"
"$CLI" search "$ST/query.png" --db "$ST/street.db" --roi-type $KIND -k 6 --backend "$B" | tee "$ST/search.txt"
"$CLI" search "$ST/query.png" --db "$ST/street.db" --roi-type $KIND -k 6 --backend "$B" --json \
  > "$ST/search.json"
# The hits as images (hit-1.png ... nearest first) and their captions for the contact sheet.
HITS=$("$PY" - "$ST" <<'PY'
import json, sys
st = sys.argv[1]
for i, h in enumerate(json.load(open(st + "/search.json")), 1):
    x, y, w, h_ = h["box"]
    print("%s/hit-%d.png %d %d %d %d %d %.1f" % (st, i, h["frame"], x, y, w, h_, h["distance"]))
PY
)
CROPS=() CELLS="$ST/query.png@query f$QF"
while read -r out f x y w h d; do
  CROPS+=("$out" "$f" "$x" "$y" "$w" "$h")
  CELLS="$CELLS,$out@d$d f$f"
done <<< "$HITS"
"$PY" scripts/demo_tools.py crop "$CLIP" "${CROPS[@]}"
cells() {  # PREFIX: the snapshots' cells, captioned with their times
  local i out=""
  for i in $SNAPS; do out="$out,$ST/$1-$i.png@t=$((10#$i * PERIOD))s"; done
  echo "${out#,}"
}
ROWS+=("input street|$(cells input)" "cudamedian3d|$(cells blobs)")
[ -n "$TRACK" ] && ROWS+=("cudarcdtrack|$(cells tracks)")
ROWS+=("cudacedd search|$CELLS")
