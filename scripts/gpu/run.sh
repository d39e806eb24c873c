#!/usr/bin/env bash
# Runs on the GPU host (through the `device` tool, with .device carried): the gpu and cpu test
# suites (CVIS_REQUIRE_GPU=1: a missing GPU fails), the benchmarks and the decode pipelines, or
# compute-sanitizer over the gpu suite. Logs go to $OUT/results.tgz; a summary is printed last.
# Usage: scripts/gpu/run.sh [tests|bench|pipelines|all|sanitize] [NAME_GLOB]
#   NAME_GLOB selects test/benchmark binaries by name (default: all), e.g. 'bench_bgsub*'.
#   sanitize: every gpu-suite binary (.device/gpu-tests.txt) under each compute-sanitizer tool,
#   with CVIS_SANITIZER=1 (the tests' small cases) and a time limit per run, then one table of
#   error counts per tool and binary. SAN_TOOLS (default "memcheck racecheck synccheck
#   initcheck"), SAN_TIMEOUT (seconds per run, default 120), SAN_ARGS (more sanitizer options).
set -uo pipefail
WHAT=${1:-all}
GLOB=${2:-*}
ROOT=$PWD
D=$ROOT/.device
OUT=${OUT:-/tmp/out}
R=/tmp/cvis-results
rm -rf "$R" && mkdir -p "$R" "$OUT"
SUMMARY=$R/summary.txt
log() { echo "$*" | tee -a "$SUMMARY"; }

tar -xJf "$D/gst-bundle.tar.xz" -C /tmp
# Test and benchmark executables (packed by prepare.sh) go to /tmp/cvis-bin.
BIN=/tmp/cvis-bin
rm -rf "$BIN" && mkdir -p "$BIN" && tar -xJf "$D/bin.tar.xz" -C "$BIN" --strip-components=1
export GST_BUNDLE_NO_NVENC=1
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH
export CVIS_TESTDATA=$D/testdata CVIS_REQUIRE_GPU=1 CVIS_TEST_H264=$D/media/test-1080p.mp4
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee -a "$SUMMARY"
gst-inspect-1.0 cudavision > "$R/inspect.txt" 2>&1
log "plugin features: $(grep -c '^  [a-z]' "$R/inspect.txt")"

if [ "$WHAT" = tests ] || [ "$WHAT" = all ]; then
  for t in "$BIN"/test_*; do
    n=$(basename "$t")
    case "$n" in $GLOB) ;; *) continue ;; esac
    start=$(date +%s.%N)
    timeout 600 "$t" --gtest_output="xml:$R/$n.xml" > "$R/$n.log" 2>&1
    rc=$?
    log "$(printf '%-28s rc=%-3s %6.1fs  %s' "$n" "$rc" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" \
      "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$R/$n.log" | tr '\n' ' ')")"
  done
  # The command-line tool (TAP): backend=cuda bit-exact with the reference vectors.
  if [ "$GLOB" = "*" ]; then
    GST_DEBUG=0 python3 tests/tools/test_cvis_cedd.py "$BIN/cvis-cedd" "$D/testdata" > "$R/cvis-cedd.tap" 2>&1
    log "$(printf '%-28s rc=%-3s ok=%s not-ok=%s' cvis-cedd.tap "$?" "$(grep -c '^ok' "$R/cvis-cedd.tap")" \
      "$(grep -c '^not ok' "$R/cvis-cedd.tap")")"
  fi
fi

if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
  for b in "$BIN"/bench_*; do
    n=$(basename "$b")
    case "$n" in $GLOB) ;; *) continue ;; esac
    start=$(date +%s)
    timeout 900 "$b" --out "$R/$n.md" > "$R/$n.log" 2>&1
    log "== $n rc=$? $(( $(date +%s) - start ))s"
    tail -n 30 "$R/$n.log" >> "$SUMMARY"
  done
fi

if [ "$WHAT" = pipelines ] || [ "$WHAT" = all ]; then
  # Whole pipelines on the 1080p H.264 clip: decode alone, then each element in CUDA memory end to
  # end, a chain (segmentation -> indexing of the blobs), and the CPU reference behind a download.
  # Three runs each: the times of all three are logged (the first includes cold caches).
  clip=$CVIS_TEST_H264
  for p in "fakesink sync=false" "cudacedd ! fakesink sync=false" \
           "cudacedd hybrid=true ! fakesink sync=false" \
           "cudadownload ! video/x-raw ! cudacedd backend=cpu ! fakesink sync=false" \
           "cudabgsub output=frame ! fakesink sync=false" "cudabgsub output=mask ! fakesink sync=false" \
           "cudabgsub output=frame ! cudacedd regions=both ! fakesink sync=false" \
           "cudamedian3d mode=paper output=background ! fakesink sync=false" \
           "cudamedian3d mode=paper output=mask ! fakesink sync=false" \
           "cudamedian3d mode=paper output=frame ! fakesink sync=false" \
           "cudamedian3d output=mask ! fakesink sync=false" \
           "cudamedian3d output=frame ! fakesink sync=false"; do
    times=""
    for i in 1 2 3; do
      out=$(gst-launch-1.0 filesrc location="$clip" ! qtdemux ! h264parse ! nvh264dec ! $p 2>&1)
      times="$times $(echo "$out" | grep -oE 'Execution ended after [0-9:.]+' | grep -oE '[0-9:.]+$')"
      echo "$out" | grep -iE 'error|critical' | head -3 >> "$SUMMARY"
    done
    log "pipeline nvh264dec ! $p:$times"
  done
fi
if [ "$WHAT" = sanitize ]; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | sort -V | tail -n 1)
  TOOLS=${SAN_TOOLS:-memcheck racecheck synccheck initcheck}
  LIMIT=${SAN_TIMEOUT:-120}
  if [ -z "$CS" ] || [ ! -x "$CS" ]; then
    log "sanitize: compute-sanitizer not found (PATH, /usr/local/cuda*/bin)"
  else
    log "sanitize: $("$CS" --version | tail -n 1), tools: $TOOLS, limit ${LIMIT}s per run"
    if [ -f "$D/gpu-tests.txt" ]; then
      names=$(cat "$D/gpu-tests.txt")
    else
      names=$(cd "$BIN" && ls test_*_gpu test_*_cuda 2>/dev/null)
    fi
    TABLE=$R/sanitize.md
    { printf '| binary |'; for t in $TOOLS; do printf ' %s |' "$t"; done; echo
      printf '| --- |'; for t in $TOOLS; do printf ' --- |'; done; echo; } > "$TABLE"
    for n in $names; do
      case "$n" in $GLOB) ;; *) continue ;; esac
      [ -x "$BIN/$n" ] || { log "sanitize: $n missing"; continue; }
      row="| $n |"
      for tool in $TOOLS; do
        L=$R/sanitize-$tool-$n.log
        start=$(date +%s)
        # application-only: not the plugin scanner GStreamer may start.
        CVIS_SANITIZER=1 timeout -k 10 "$LIMIT" "$CS" --tool "$tool" --target-processes application-only \
          --print-limit 20 ${SAN_ARGS:-} "$BIN/$n" --gtest_brief=1 > "$L" 2>&1
        rc=$?
        secs=$(( $(date +%s) - start ))
        errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$L" | tail -n 1 | grep -oE '[0-9]+')
        warns=$(grep -oE 'RACECHECK SUMMARY: .*[0-9]+ warning' "$L" | tail -n 1 | grep -oE '[0-9]+ warning' | grep -oE '[0-9]+')
        failed=$(grep -cE '^\[  FAILED  \] [A-Za-z]' "$L")
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
          cell="TIMEOUT"
        elif [ -z "$errors" ]; then
          cell="no summary (rc=$rc)"
        else
          cell="$errors"
          [ -n "$warns" ] && [ "$warns" != 0 ] && cell="$cell (+$warns warnings)"
          [ "$failed" != 0 ] && cell="$cell, $failed tests failed"
          [ "$rc" != 0 ] && [ "$failed" = 0 ] && cell="$cell, rc=$rc"
        fi
        row="$row $cell, ${secs}s |"
        echo "sanitize $tool $n: $cell (${secs}s)" >&2
      done
      echo "$row" >> "$TABLE"
    done
    log "compute-sanitizer, errors per tool and binary (CVIS_SANITIZER=1 cases; logs: sanitize-TOOL-BINARY.log):"
    cat "$TABLE" | tee -a "$SUMMARY"
  fi
fi

cp "$SUMMARY" "$OUT/summary.txt"
tar -czf "$OUT/results.tgz" -C "$R" .
cat "$SUMMARY"
