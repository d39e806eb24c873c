#!/usr/bin/env bash
# The demo: builds the project (installing what is missing on Debian 12) and runs the elements on a
# generated clip and on real footage, GPU when one is usable (else the CPU reference). Everything it
# writes is in demo-output/ (it prints where):
# - the generated clip (4 shots): clip.mp4, its CEDD index (index.db), shots.txt, shot-*.png, a
#   search with one of its frames (query.png, search.txt);
# - segmentation/: a moving ball segmented by cudabgsub and cudamedian3d (masks, background,
#   annotated frames: mp4 and PNG snapshots);
# - street/: a street with pedestrians (opencv-doc's vtest.avi, fetched once into .cache/demo by
#   scripts/get-street-clip.sh), decoded through GStreamer: cudamedian3d motion blobs -> tracks
#   (cudarcdtrack init-roi-type=foreground, when the plugin has it) -> CEDD of every box, indexed
#   -> cudaroioverlay -> street-annotated.mp4 and PNG snapshots; a search of the index with a crop
#   of one person (query.png, search.txt, hit-*.png);
# - actions/: a KTH-like dataset rendered by tests/actiongen, a dictionary trained on three of its
#   subjects (cvis-action train), and cudaactionmatch on the fourth's clips: results.txt and the
#   recognised actions drawn by cudaroioverlay (walking-0089.png, ...);
# - contact-sheet.png: one row of annotated frames per element.
# Runtime with the CPU reference on 2 cores (measured 2026-11-24, plugin already built): 272 s in
# all, of which the street part (its first 200 frames without a GPU: about 0.7 s per frame for
# median, tracker and CEDD; CVIS_DEMO_STREET_FRAMES changes it) about 150 s and the actions part
# (rendering, training, four clips) about 50 s; --no-street leaves the street out. Plus the first
# build and the one-time download (96 MB .deb, only the 8 MB clip is kept).
# Usage: scripts/demo.sh [--backend auto|cpu|cuda] [--no-build] [--no-street]
#   --no-build: use the plugin already on GST_PLUGIN_PATH (e.g. a GStreamer bundle on a GPU host)
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=auto BUILD=1 STREET=1
while [ $# -gt 0 ]; do
  case $1 in
    --backend) BACKEND=$2; shift ;;
    --no-build) BUILD=0 ;;
    --no-street) STREET=0 ;;
    *) echo "usage: scripts/demo.sh [--backend auto|cpu|cuda] [--no-build] [--no-street]" >&2; exit 2 ;;
  esac
  shift
done
OUTDIR=demo-output
START=$(date +%s)
CLI=${CVIS_CEDD:-build/gst/tools/cvis-cedd}
PY=${CVIS_PYTHON:-/usr/bin/python3}   # Debian's Python: it has the GStreamer bindings
if [ $BUILD = 1 ]; then
  scripts/deps.sh
  scripts/configure.sh build
  ninja -C build > build.ninja.log 2>&1 || { tail -n 40 build.ninja.log; exit 1; }
  export GST_PLUGIN_PATH=$PWD/build/gst
fi
# GPU: the CUDA backend starts, and nvh264dec decodes into CUDA memory.
GPU=0
if [ "$BACKEND" != cpu ] && gst-launch-1.0 -q videotestsrc num-buffers=1 ! cudaroioverlay backend=cuda \
    ! fakesink >/dev/null 2>&1; then
  GPU=1
fi
[ "$BACKEND" = cuda ] && [ $GPU = 0 ] && { echo "demo: --backend cuda but no usable GPU" >&2; exit 1; }
B=$([ $GPU = 1 ] && echo cuda || echo cpu)
echo "== backend: $B"

rm -rf "$OUTDIR" && mkdir -p "$OUTDIR/frames"
echo "== generating $OUTDIR/clip.mp4 (4 shots x 60 frames, 640x360)"
scripts/make-clip.sh "$OUTDIR/clip.mp4" 640 360 60

echo "== indexing with cudacedd (backend=$BACKEND)"
"$CLI" index "$OUTDIR/clip.mp4" --db "$OUTDIR/index.db" --backend "$B" | tee "$OUTDIR/shots.txt"

# Thumbnails: decode every frame once, keep the first frame of each shot and one query frame.
gst-launch-1.0 -q filesrc location="$OUTDIR/clip.mp4" ! decodebin ! videoconvert ! pngenc \
  ! multifilesink location="$OUTDIR/frames/%04d.png" >/dev/null
"$PY" -c 'import sqlite3, sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(
  "SELECT frame FROM descriptors WHERE roi_id = -1 AND (frame = 0 OR shot_change = 1) ORDER BY frame")]' \
  "$OUTDIR/index.db" |
  while read -r f; do cp "$OUTDIR/frames/$(printf %04d "$f").png" "$OUTDIR/shot-$(printf %04d "$f").png"; done
cp "$OUTDIR/frames/0100.png" "$OUTDIR/query.png"
rm -rf "$OUTDIR/frames"

echo "== searching the index with $OUTDIR/query.png (frame 100 of the clip, second shot: frames 60-119)"
echo "   (distance 0..100; CEDD is quantised to 3 bits per bin, so frames of one shot often tie at 0)"
"$CLI" search "$OUTDIR/query.png" --db "$OUTDIR/index.db" -k 5 --backend "$B" | tee "$OUTDIR/search.txt"

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
snapshots() {  # NAME: keeps NAME-0030.png, -0045, -0060 and -0075
  find "$SEG" -name "$1-*.png" ! -name "$1-0030.png" ! -name "$1-0045.png" ! -name "$1-0060.png" \
    ! -name "$1-0075.png" -delete
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
segment cudabgsub-mask cudabgsub backend="$B" output=mask
segment cudamedian3d-background cudamedian3d backend="$B" output=background
segment cudamedian3d-mask cudamedian3d backend="$B" output=mask
# The same, annotated: tinted mask and blob boxes drawn by cudaroioverlay.
segment cudabgsub-annotated cudabgsub backend="$B" output=frame ! cudaroioverlay backend="$B"
segment cudamedian3d-annotated cudamedian3d backend="$B" output=frame ! cudaroioverlay backend="$B"

ROWS=("input|$SEG/input-0030.png@frame 30,$SEG/input-0045.png@frame 45,$SEG/input-0060.png@frame 60,$SEG/input-0075.png@frame 75"
  "cudabgsub|$SEG/cudabgsub-annotated-0030.png@frame 30,$SEG/cudabgsub-annotated-0045.png@frame 45,$SEG/cudabgsub-annotated-0060.png@frame 60,$SEG/cudabgsub-annotated-0075.png@frame 75")
. scripts/demo-actions.sh
[ $STREET = 1 ] && . scripts/demo-street.sh
ROWS+=("cudacedd shots|$(ls "$OUTDIR"/shot-*.png | sed 's/.*shot-0*\([0-9][0-9]*\)\.png/&@shot at frame \1/' | paste -sd,)")
echo "== contact sheet: one row of annotated frames per element"
"$PY" scripts/demo_tools.py sheet "$OUTDIR/contact-sheet.png" 192x144 "${ROWS[@]}"

echo "== done in $(( $(date +%s) - START )) s (backend $B). Files:"
echo "   $OUTDIR/: $(cd "$OUTDIR" && ls -d -- * | tr '\n' ' ')"
echo "   $SEG/: $(ls "$SEG" | tr '\n' ' ')"
[ -d "$OUTDIR/actions" ] && echo "   $OUTDIR/actions/: $(ls "$OUTDIR/actions" | tr '\n' ' ')"
[ $STREET = 1 ] && [ -d "$OUTDIR/street" ] && echo "   $OUTDIR/street/: $(ls "$OUTDIR/street" | tr '\n' ' ')"
echo "   look at: $OUTDIR/contact-sheet.png${STREET_MP4:+, $STREET_MP4}"
