#!/usr/bin/env bash
# Stages the quality corpus's videos for the GPU host: copies list.txt and every <sequence>/video.mp4
# (the only inputs of run_elements.sh) into .device/quality/corpus, after scripts/gpu/prepare.sh
# (which empties .device). The ground truth stays here: score the dumped masks on this machine.
# Usage: tests/quality/stage_gpu.sh [CORPUS]   (default build-quality/corpus)
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPUS=${1:-build-quality/corpus}
[ -f "$CORPUS/list.txt" ] || { echo "stage_gpu: no corpus at $CORPUS (make_corpus.py)" >&2; exit 1; }
DEST=.device/quality/corpus
rm -rf "$DEST" && mkdir -p "$DEST"
cp "$CORPUS/list.txt" "$DEST/"
while read -r seq _; do
  mkdir -p "$DEST/$seq"
  cp "$CORPUS/$seq/video.mp4" "$DEST/$seq/"
done < "$CORPUS/list.txt"
du -sh .device/quality .device
