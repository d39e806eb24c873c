#!/usr/bin/env bash
# Real backgrounds for gen_actions --backgrounds: the sample videos and photos that Debian's
# opencv-doc package ships (examples/data), downloaded with apt and unpacked into a cache folder
# that git ignores (default build/actiongen-cache). Nothing is committed.
# Usage: tests/actiongen/fetch_backgrounds.sh [CACHE_DIR]    (prints the backgrounds folder)
set -euo pipefail
cache=${1:-build/actiongen-cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
out="$cache/backgrounds"
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "$out"
  exit 0
fi
cd "$cache"
ls opencv-doc_*.deb > /dev/null 2>&1 || apt-get download opencv-doc > /dev/null 2>&1
rm -rf unpacked && dpkg -x opencv-doc_*.deb unpacked
mkdir -p "$out"
# Videos (moving backgrounds) and photos of scenes; skip tiny test patterns, calibration boards
# and vtest.avi (other people walking would contradict the labels).
find unpacked -path '*examples/data/*' -type f \( -name '*.avi' -o -name '*.mp4' -o -name '*.jpg' \
  -o -name '*.png' \) -size +40k | while read -r f; do
  case "$(basename "$f")" in
    *chess*|*calib*|vtest*|*_bugy*|*left*|*right*|*aruco*|*board*|*digits*|*text*|*mask*) continue ;;
  esac
  cp -f "$f" "$out/"
done
rm -rf unpacked
echo "$out"
