#!/usr/bin/env bash
# The demo's real footage: vtest.avi (a street with pedestrians, 768x576, 10 fps, 795 frames) from
# Debian's opencv-doc package. `apt-get download` fetches the .deb into the cache (nothing is
# installed), only the clip is unpacked, and it is transcoded once to H.264 (street.mp4) so that
# GPU machines decode it with nvh264dec. Prints the path of street.mp4.
# --hd: street-1080p30.mp4 instead, the clip upscaled to 1920x1080 and played as 30 fps (every
# frame once, 26.5 s: bench_streams' real footage; pedestrians move three times as far per frame).
# --hd-long: street-1080p30-long.mp4, the --hd clip played forward, backward and forward again
# (2,385 frames, 79.5 s, no cut and no seek): a 10-s warm-up and a 20-s window of bench_streams at
# up to 79 fps per stream never loop (a loop flushes the elements, whose first frames after it
# cost less).
# Usage: scripts/get-street-clip.sh [CACHE_DIR] [--hd|--hd-long]   (default .cache/demo; the .deb
# is not kept)
set -euo pipefail
CACHE=${1:-.cache/demo}
mkdir -p "$CACHE"
OUT=$CACHE/street.mp4 SCALE=""
if [ "${2:-}" = --hd ]; then
  OUT=$CACHE/street-1080p30.mp4
  SCALE="videorate rate=3.0 ! video/x-raw,framerate=30/1 ! videoscale ! video/x-raw,width=1920,height=1080 !"
fi
if [ "${2:-}" != --hd-long ] && [ -s "$OUT" ]; then echo "$OUT"; exit 0; fi
if [ ! -s "$CACHE/vtest.avi" ]; then
  tmp=$(mktemp -d "$CACHE/deb.XXXXXX")
  if ! (cd "$tmp" && apt-get download -q opencv-doc) >&2; then
    echo "street clip: 'apt-get download opencv-doc' failed (offline, or run apt-get update)" >&2
    rm -rf "$tmp"
    exit 1
  fi
  dpkg-deb --fsys-tarfile "$tmp"/opencv-doc_*.deb \
    | tar -xO ./usr/share/doc/opencv-doc/examples/data/vtest.avi > "$CACHE/vtest.avi.part"
  rm -rf "$tmp"
  [ -s "$CACHE/vtest.avi.part" ] || { echo "street clip: vtest.avi not in the package" >&2; exit 1; }
  mv "$CACHE/vtest.avi.part" "$CACHE/vtest.avi"
fi
if [ "${2:-}" = --hd-long ]; then
  LONG=$CACHE/street-1080p30-long.mp4
  if [ ! -s "$LONG" ]; then
    raw=$(mktemp "$CACHE/raw.XXXXXX")
    gst-launch-1.0 -q filesrc location="$CACHE/vtest.avi" ! decodebin ! videoconvert \
      ! video/x-raw,format=I420,width=768,height=576 ! filesink location="$raw" >&2
    # Frames forward, backward, forward (I420 768x576: 663,552 bytes each).
    python3 - "$raw" "$raw.fbf" <<'PY'
import os, sys
size = 768 * 576 * 3 // 2
n = os.path.getsize(sys.argv[1]) // size
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as o:
    for k in list(range(n)) + list(range(n - 2, 0, -1)) + list(range(n)):
        f.seek(k * size)
        o.write(f.read(size))
PY
    gst-launch-1.0 -q filesrc location="$raw.fbf" blocksize=663552 \
      ! rawvideoparse format=i420 width=768 height=576 framerate=30/1 ! videoscale \
      ! video/x-raw,width=1920,height=1080 ! x264enc speed-preset=ultrafast key-int-max=30 \
      ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location="$LONG.part" >&2
    rm -f "$raw" "$raw.fbf"
    mv "$LONG.part" "$LONG"
  fi
  echo "$LONG"
  exit 0
fi
# shellcheck disable=SC2086
gst-launch-1.0 -q filesrc location="$CACHE/vtest.avi" ! decodebin ! $SCALE videoconvert \
  ! video/x-raw,format=I420 ! x264enc speed-preset=ultrafast key-int-max=30 \
  ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location="$OUT.part" >&2
mv "$OUT.part" "$OUT"
echo "$OUT"
