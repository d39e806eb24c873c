#!/usr/bin/env bash
# The demo's real footage: vtest.avi (a street with pedestrians, 768x576, 10 fps, 795 frames) from
# Debian's opencv-doc package. `apt-get download` fetches the .deb into the cache (nothing is
# installed), only the clip is unpacked, and it is transcoded once to H.264 (street.mp4) so that
# GPU machines decode it with nvh264dec. Prints the path of street.mp4.
# --hd: street-1080p30.mp4 instead, the clip upscaled to 1920x1080 and played as 30 fps (every
# frame once, 26.5 s: bench_streams' real footage; pedestrians move three times as far per frame).
# --hd-long: street-1080p30-long.mp4, the --hd clip played forward, backward and forward again
# (2,383 frames, 79.4 s, no cut and no seek): a 10-s warm-up and a 20-s window of bench_streams at
# up to 79 fps per stream never loop (a loop flushes the elements, whose first frames after it
# cost less). Made in one pipe (the clip decoded again per 64-frame segment for the backward pass):
# no raw frames on disk (before: 2.1 GB of raw files), at most 64 frames held (the Python process
# peaked at 97 MB).
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
    # Frames forward, backward, forward, streamed into the encoder: nothing raw on disk. The
    # backward pass decodes the clip again per segment of SEG frames from the end and sends the
    # segment reversed, so at most SEG frames (I420 768x576: 663,552 bytes each; 64: 42 MB) are
    # held; the clip (795 frames) decodes at several hundred frames/s, so the ~13 partial decodes
    # cost seconds. The frames and their order are those of a decoded file played in that order.
    python3 - "$CACHE/vtest.avi" <<'PY' | gst-launch-1.0 -q fdsrc fd=0 \
      ! rawvideoparse format=i420 width=768 height=576 framerate=30/1 ! videoscale \
      ! video/x-raw,width=1920,height=1080 ! x264enc speed-preset=ultrafast key-int-max=30 \
      ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location="$LONG.part" >&2
import subprocess, sys
SIZE, SEG = 768 * 576 * 3 // 2, 64
out = sys.stdout.buffer

def frames(stop=None):
    """The clip's decoded frames 0, 1, ... (up to `stop`, exclusive: the decoder is stopped)."""
    p = subprocess.Popen(["gst-launch-1.0", "-q", "filesrc", "location=" + sys.argv[1], "!",
                          "decodebin", "!", "videoconvert", "!",
                          "video/x-raw,format=I420,width=768,height=576", "!", "fdsink", "fd=1"],
                         stdout=subprocess.PIPE)
    k = 0
    try:
        while stop is None or k < stop:
            f = p.stdout.read(SIZE)
            if len(f) < SIZE:
                break
            yield k, f
            k += 1
    finally:
        if stop is not None and k >= stop:
            p.kill()  # the rest of the clip is not needed
        p.stdout.close()
        rc = p.wait()
        if rc != 0 and not (stop is not None and k >= stop):
            sys.exit("street clip: decoding vtest.avi failed (%d)" % rc)

n = 0
for k, f in frames():  # forward: 0 .. n-1
    out.write(f)
    n = k + 1
if n < 3:
    sys.exit("street clip: vtest.avi has %d frames" % n)
hi = n - 2  # backward: n-2 .. 1 (the ends are not repeated)
while hi >= 1:
    lo = max(1, hi - SEG + 1)
    seg = [f for k, f in frames(hi + 1) if k >= lo]
    if len(seg) != hi - lo + 1:
        sys.exit("street clip: vtest.avi decoded to fewer frames than before")
    for f in reversed(seg):
        out.write(f)
    hi = lo - 1
m = 0
for k, f in frames():  # forward again
    out.write(f)
    m = k + 1
if m != n:
    sys.exit("street clip: vtest.avi decoded to %d frames, then %d" % (n, m))
out.flush()
PY
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
