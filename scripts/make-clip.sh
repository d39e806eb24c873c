#!/usr/bin/env bash
# Writes a generated H.264 clip with distinct shots (SMPTE bars, a moving ball, a pinwheel, a
# gradient of colours), for demos and decode benchmarks.
# Usage: scripts/make-clip.sh OUT.mp4 [WIDTH HEIGHT FRAMES_PER_SHOT]
set -euo pipefail
OUT=$1 W=${2:-640} H=${3:-360} N=${4:-60}
caps="video/x-raw,width=$W,height=$H,framerate=30/1,format=I420"
gst-launch-1.0 -q concat name=c ! videoconvert ! x264enc speed-preset=ultrafast key-int-max=30 \
    ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location="$OUT" \
  videotestsrc num-buffers="$N" pattern=smpte ! "$caps" ! c. \
  videotestsrc num-buffers="$N" pattern=ball motion=wavy ! "$caps" ! c. \
  videotestsrc num-buffers="$N" pattern=pinwheel ! "$caps" ! c. \
  videotestsrc num-buffers="$N" pattern=colors ! "$caps" ! c. >/dev/null
