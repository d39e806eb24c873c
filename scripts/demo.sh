#!/usr/bin/env bash
# The demo: builds the project (installing what is missing on Debian 12), generates a short clip
# with four shots, indexes it with cudacedd (GPU when one is usable, else the CPU reference),
# prints the shot changes, and searches the index with one of the clip's frames. Everything it
# writes is in demo-output/: clip.mp4, index.db (SQLite), shots.txt, shot-*.png (first frame of
# each shot), query.png and search.txt.
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
echo "== done: $(ls "$OUTDIR" | tr '\n' ' ')"
