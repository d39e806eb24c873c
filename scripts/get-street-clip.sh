#!/usr/bin/env bash
# The demo's real footage: vtest.avi (a street with pedestrians, 768x576, 10 fps, 795 frames) from
# Debian's opencv-doc package. `apt-get download` fetches the .deb into the cache (nothing is
# installed), only the clip is unpacked, and it is transcoded once to H.264 (street.mp4) so that
# GPU machines decode it with nvh264dec. Prints the path of street.mp4.
# Usage: scripts/get-street-clip.sh [CACHE_DIR]   (default .cache/demo; the .deb is not kept)
set -euo pipefail
CACHE=${1:-.cache/demo}
mkdir -p "$CACHE"
OUT=$CACHE/street.mp4
if [ -s "$OUT" ]; then echo "$OUT"; exit 0; fi
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
gst-launch-1.0 -q filesrc location="$CACHE/vtest.avi" ! decodebin ! videoconvert \
  ! video/x-raw,format=I420 ! x264enc speed-preset=ultrafast key-int-max=30 \
  ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location="$OUT.part" >&2
mv "$OUT.part" "$OUT"
echo "$OUT"
