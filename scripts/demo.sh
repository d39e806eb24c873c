#!/usr/bin/env bash
# The demo: builds the project (installing what is missing on Debian 12), generates a short clip
# with four shots, indexes it with cudacedd (GPU when one is usable, else the CPU reference),
# prints the shot changes, and searches the index with one of the clip's frames. Everything it
# writes is in demo-output/: clip.mp4, index.db (SQLite), shots.txt, shot-*.png (first frame of
# each shot), query.png and search.txt; segmentation/ holds the foreground masks of cudabgsub and
# the background and motion mask of cudamedian3d for a moving ball (mp4 and PNG snapshots).
# Usage: scripts/demo.sh [--backend auto|cpu|cuda]
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=auto
[ "${1:-}" = "--backend" ] && BACKEND=$2
OUTDIR=demo-output
scripts/deps.sh
scripts/configure.sh build
ninja -C build > build.ninja.log 2>&1 || { tail -n 40 build.ninja.log; exit 1; }
export GST_PLUGIN_PATH=$PWD/build/gst
CLI=build/gst/tools/cvis-cedd

rm -rf "$OUTDIR" && mkdir -p "$OUTDIR/frames"
echo "== generating $OUTDIR/clip.mp4 (4 shots x 60 frames, 640x360)"
scripts/make-clip.sh "$OUTDIR/clip.mp4" 640 360 60

echo "== indexing with cudacedd (backend=$BACKEND)"
"$CLI" index "$OUTDIR/clip.mp4" --db "$OUTDIR/index.db" --backend "$BACKEND" | tee "$OUTDIR/shots.txt"

# Thumbnails: decode every frame once, keep the first frame of each shot and one query frame.
gst-launch-1.0 -q filesrc location="$OUTDIR/clip.mp4" ! decodebin ! videoconvert ! pngenc \
  ! multifilesink location="$OUTDIR/frames/%04d.png" >/dev/null
sqlite3 "$OUTDIR/index.db" "SELECT frame FROM descriptors WHERE roi_id = -1 AND (frame = 0 OR shot_change = 1) ORDER BY frame" |
  while read -r f; do cp "$OUTDIR/frames/$(printf %04d "$f").png" "$OUTDIR/shot-$(printf %04d "$f").png"; done
cp "$OUTDIR/frames/0100.png" "$OUTDIR/query.png"
rm -rf "$OUTDIR/frames"

echo "== searching the index with $OUTDIR/query.png (frame 100 of the clip, second shot: frames 60-119)"
echo "   (distance 0..100; CEDD is quantised to 3 bits per bin, so frames of one shot often tie at 0)"
"$CLI" search "$OUTDIR/query.png" --db "$OUTDIR/index.db" -k 5 --backend "$BACKEND" | tee "$OUTDIR/search.txt"

# Segmentation: 90 frames of an orange ball moving over colour bars (composited, H.264-encoded, so the
# background carries coding noise), through cudabgsub (KDE model; its warm-up frames are all
# background) and cudamedian3d (3x3x15 median, centered window: output 7 frames behind its input,
# timestamps kept). Each writes an mp4 and PNGs of frames 30 and 60 next to the input's.
SEG=$OUTDIR/segmentation
mkdir -p "$SEG"
gst-launch-1.0 -q compositor name=mix background=black \
    ! video/x-raw,width=640,height=360,framerate=30/1 ! videoconvert ! video/x-raw,format=I420 \
    ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location="$SEG/input.mp4" \
  videotestsrc num-buffers=90 pattern=smpte100 ! video/x-raw,width=640,height=360,framerate=30/1 ! mix. \
  videotestsrc num-buffers=90 pattern=ball motion=wavy background-color=0x00000000 foreground-color=0xffff8000 \
    ! video/x-raw,format=BGRA,width=640,height=360,framerate=30/1 ! mix. >/dev/null
snapshots() {  # NAME: keeps NAME-0030.png and NAME-0060.png
  find "$SEG" -name "$1-*.png" ! -name "$1-0030.png" ! -name "$1-0060.png" -delete
}
gst-launch-1.0 -q filesrc location="$SEG/input.mp4" ! decodebin ! videoconvert ! pngenc \
  ! multifilesink location="$SEG/input-%04d.png" >/dev/null
snapshots input
segment() {  # NAME ELEMENT [PROPERTY=VALUE...]
  local name=$1; shift
  echo "== segmentation: $*"
  gst-launch-1.0 -q filesrc location="$SEG/input.mp4" ! decodebin ! videoconvert ! "$@" \
    ! videoconvert ! video/x-raw,format=I420 ! tee name=t \
    t. ! queue ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location="$SEG/$name.mp4" \
    t. ! queue ! videoconvert ! pngenc ! multifilesink location="$SEG/$name-%04d.png" >/dev/null
  snapshots "$name"
}
segment cudabgsub-mask cudabgsub backend="$BACKEND" output=mask
segment cudamedian3d-background cudamedian3d backend="$BACKEND" output=background
segment cudamedian3d-mask cudamedian3d backend="$BACKEND" output=mask
echo "== done: $(ls "$OUTDIR" | tr '\n' ' ')"
echo "   segmentation/: $(ls "$SEG" | tr '\n' ' ')"
