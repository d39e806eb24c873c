#!/usr/bin/env bash
# Runs on the GPU host (with .device/ copied beside the scripts): the gpu and cpu test
# suites (CVIS_REQUIRE_GPU=1: a missing GPU fails), the benchmarks and the decode pipelines, or
# compute-sanitizer over the gpu suite. Logs go to $OUT/results.tgz; a summary is printed last.
# scripts/gpu/bench_tables.py turns results.tgz into the tables of docs/benchmarks.md.
# Usage: scripts/gpu/run.sh PARTS [NAME_GLOB]
#        scripts/gpu/run.sh soak [SECONDS] [STREAMS]     (a short soak: bench_streams --soak)
#   PARTS: tests, sanitize, bench, pipelines, soak, actions or all (= tests,bench,pipelines), or several
#   joined by commas, e.g. tests,sanitize (one device call).
#   NAME_GLOB selects test/benchmark binaries by name (default: all), e.g. 'bench_bgsub*'.
#   CVIS_JOBS: test and sanitizer runs at once (default 6; benchmarks always run one at a time).
#   CVIS_RESULTS: the results folder (default /tmp/cvis-results); CVIS_NO_EXTRACT=1: see below.
#   BENCH_SKIP: a glob of benchmarks left out (e.g. 'bench_streams'); BENCH_ARGS: more arguments.
#   SOAK_SECS, SOAK_STREAMS: the soak part's length and streams (default 240 s, 8).
#   ACTION_DICT: a cudaactionmatch dictionary; pipelines then also time the element with it.
#   actions: gen_actions renders a dataset and cvis-action eval runs on it (ACT_GEN, ACT_EVALS,
#   ACT_JOBS evals at once).
#   sanitize: every gpu-suite binary (.device/gpu-tests.txt) under each compute-sanitizer tool,
#   with CVIS_SANITIZER=1 (the tests' small cases) and a time limit per run, then one table of
#   error counts per tool and binary. SAN_TOOLS (default "memcheck racecheck synccheck
#   initcheck"), SAN_TIMEOUT (seconds per run, default 120), SAN_ARGS (more sanitizer options),
#   SAN_SPLIT (binaries run one test at a time, e.g. "test_actionmatch_gpu"). Tests read
#   CVIS_SANITIZER_TOOL to take smaller cases (the actionmatch gpu tests: clusters of at most 2
#   blocks under racecheck).
set -uo pipefail
WHAT=${1:-all}
GLOB=${2:-*}
JOBS=${CVIS_JOBS:-6}
[ "$WHAT" = all ] && WHAT=tests,bench,pipelines
if [ "$WHAT" = soak ]; then
  SOAK_SECS=${2:-${SOAK_SECS:-240}} SOAK_STREAMS=${3:-${SOAK_STREAMS:-8}} GLOB='*'
fi
want() { case ",$WHAT," in *",$1,"*) return 0 ;; esac; return 1; }
# Waits until fewer than JOBS background jobs run.
pool() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done; }
ROOT=$PWD
D=$ROOT/.device
OUT=${OUT:-/tmp/out}
R=${CVIS_RESULTS:-/tmp/cvis-results}
rm -rf "$R" && mkdir -p "$R" "$OUT"
SUMMARY=$R/summary.txt
# The summary is copied to $OUT as it grows: a call cut off by its time limit still returns it.
log() { echo "$*" | tee -a "$SUMMARY"; cp "$SUMMARY" "$OUT/summary.txt"; }

# Test and benchmark executables (packed by prepare.sh) go to /tmp/cvis-bin. CVIS_NO_EXTRACT=1
# reuses what another run.sh of the same call unpacked (two parts at once: give the second its own
# CVIS_RESULTS and OUT).
BIN=/tmp/cvis-bin
if [ "${CVIS_NO_EXTRACT:-0}" != 1 ]; then
  tar -xJf "$D/gst-bundle.tar.xz" -C /tmp
  rm -rf "$BIN" && mkdir -p "$BIN" && tar -xJf "$D/bin.tar.xz" -C "$BIN" --strip-components=1
fi
export GST_BUNDLE_NO_NVENC=1
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH
export CVIS_TESTDATA=$D/testdata CVIS_REQUIRE_GPU=1 CVIS_TEST_H264=$D/media/test-1080p.mp4
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee -a "$SUMMARY"
[ -f "$D/COMMIT" ] && log "commit: $(cat "$D/COMMIT")"   # written by prepare.sh
gst-inspect-1.0 cudavision > "$R/inspect.txt" 2>&1
log "plugin features: $(grep -c '^  [a-z]' "$R/inspect.txt")"

run_test() {
  local t=$1 n start rc
  n=$(basename "$t")
  start=$(date +%s.%N)
  timeout 600 "$t" --gtest_output="xml:$R/$n.xml" > "$R/$n.log" 2>&1
  rc=$?
  printf '%-28s rc=%-3s %6.1fs  %s\n' "$n" "$rc" \
    "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" \
    "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$R/$n.log" | tr '\n' ' ')" > "$R/$n.line"
}
if want tests; then
  log "tests: $JOBS at once"
  for t in "$BIN"/test_*; do
    case "$(basename "$t")" in $GLOB) ;; *) continue ;; esac
    pool
    run_test "$t" &
  done
  # The command-line tools (TAP): backend=cuda bit-exact with the reference vectors / the CPU.
  if [ "$GLOB" = "*" ]; then
    ( GST_DEBUG=0 python3 tests/tools/test_cvis_cedd.py "$BIN/cvis-cedd" "$D/testdata" > "$R/cvis-cedd.tap" 2>&1
      echo "$?" > "$R/cvis-cedd.rc" ) &
    ( python3 tests/tools/test_cvis_action.py "$BIN/cvis-action" > "$R/cvis-action.tap" 2>&1
      echo "$?" > "$R/cvis-action.rc" ) &
  fi
  wait
  for t in "$BIN"/test_*; do
    n=$(basename "$t")
    [ -f "$R/$n.line" ] && log "$(cat "$R/$n.line")"
  done
  for tap in cvis-cedd cvis-action; do
    [ -f "$R/$tap.tap" ] || continue
    log "$(printf '%-28s rc=%-3s ok=%s not-ok=%s' "$tap.tap" "$(cat "$R/$tap.rc")" \
      "$(grep -c '^ok' "$R/$tap.tap")" "$(grep -c '^not ok' "$R/$tap.tap")")"
  done
fi

if want bench; then
  for b in "$BIN"/bench_*; do
    n=$(basename "$b")
    case "$n" in $GLOB) ;; *) continue ;; esac
    case "$n" in ${BENCH_SKIP:-/}) continue ;; esac
    start=$(date +%s)
    echo "$n --out $n.md ${BENCH_ARGS:-}" > "$R/$n.cmd"   # for scripts/gpu/bench_tables.py
    # shellcheck disable=SC2086
    timeout 900 "$b" --out "$R/$n.md" ${BENCH_ARGS:-} > "$R/$n.log" 2>&1
    log "== $n rc=$? $(( $(date +%s) - start ))s"
    tail -n 30 "$R/$n.log" >> "$SUMMARY"
    tar -czf "$OUT/results.tgz" -C "$R" .   # the results leave the GPU host as one archive
  done
fi

if want pipelines; then
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
           "cudamedian3d output=frame ! fakesink sync=false" \
           ${ACTION_DICT:+"cudaactionmatch model-location=$ACTION_DICT ! fakesink sync=false"}; do
    times=""
    for i in 1 2 3; do
      out=$(gst-launch-1.0 filesrc location="$clip" ! qtdemux ! h264parse ! nvh264dec ! $p 2>&1)
      times="$times $(echo "$out" | grep -oE 'Execution ended after [0-9:.]+' | grep -oE '[0-9:.]+$')"
      echo "$out" | grep -iE 'error|critical' | head -3 >> "$SUMMARY"
    done
    log "pipeline nvh264dec ! $p:$times"
  done
fi
if want sanitize; then
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
    # san_one BINARY TOOL [TEST]: one run; with TEST (Suite.Name) only that test, labelled
    # BINARY/Name (SAN_SPLIT runs the named binaries test by test, so one slow test does not hide
    # the others' results).
    san_one() {
      local n=$1 tool=$2 test=${3:-} label L start rc secs errors warns failed cell
      label=$n${test:+/${test#*.}}
      L=$R/sanitize-$tool-${label//\//-}.log
      start=$(date +%s)
      # application-only: not the plugin scanner GStreamer may start.
      env CVIS_SANITIZER=1 CVIS_SANITIZER_TOOL=$tool timeout -k 10 "$LIMIT" "$CS" --tool "$tool" --target-processes application-only \
        --print-limit 20 ${SAN_ARGS:-} "$BIN/$n" --gtest_brief=1 ${test:+--gtest_filter=$test} > "$L" 2>&1
      rc=$?
      secs=$(( $(date +%s) - start ))
      errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$L" | tail -n 1 | grep -oE '[0-9]+')
      # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
      [ -z "$errors" ] && errors=$(grep -oE 'RACECHECK SUMMARY: .*\([0-9]+ error' "$L" | tail -n 1 |
        grep -oE '[0-9]+ error' | grep -oE '[0-9]+')
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
      echo "$cell, ${secs}s" > "$R/san-$tool-${label//\//-}.cell"
      echo "sanitize $tool $label: $cell (${secs}s)" >&2
    }
    sel=""
    for n in $names; do
      case "$n" in $GLOB) ;; *) continue ;; esac
      [ -x "$BIN/$n" ] || { log "sanitize: $n missing"; continue; }
      tests=""
      case " ${SAN_SPLIT:-} " in *" $n "*)
        tests=$("$BIN/$n" --gtest_list_tests | awk '/^[^ ]/ {s=$1} /^  [^ ]/ {print s $1}') ;;
      esac
      for tool in $TOOLS; do
        if [ -n "$tests" ]; then
          for t in $tests; do pool; sel="$sel $n/${t#*.}"; san_one "$n" "$tool" "$t" & done
        else
          pool; sel="$sel $n"; san_one "$n" "$tool" &
        fi
      done
    done
    wait
    for label in $(printf '%s\n' $sel | awk '!seen[$0]++'); do
      row="| $label |"
      for tool in $TOOLS; do row="$row $(cat "$R/san-$tool-${label//\//-}.cell" 2>/dev/null || echo missing) |"; done
      echo "$row" >> "$TABLE"
    done
    log "compute-sanitizer, errors per tool and binary (CVIS_SANITIZER=1 cases; logs: sanitize-TOOL-BINARY.log):"
    cat "$TABLE" | tee -a "$SUMMARY"
  fi
fi

if want soak; then
  # The full chain in several streams, memory sampled every 10 s (scripts/soak.sh on a host with
  # GStreamer does the same for hours).
  secs=${SOAK_SECS:-240}
  timeout $((secs + 120)) "$BIN/bench_streams" --soak "$secs" --sample 10 --ns "${SOAK_STREAMS:-8}" \
    --out "$R/soak.md" > "$R/soak.log" 2>&1
  log "== soak rc=$? (${secs} s)"
  tail -n 40 "$R/soak.log" >> "$SUMMARY"
fi

if want actions; then
  # Leave-one-subject-out accuracy of cvis-action on a dataset gen_actions renders here (the CPU
  # has too few cores to match it). ACT_GEN: gen_actions arguments; ACT_EVALS: option sets for
  # cvis-action eval separated by ';' (one eval each, sharing the point cache).
  A=/tmp/cvis-actions
  gen_args=${ACT_GEN:---subjects 25 --scenarios 4 --frames 100 --size 160x120 --seed 7}
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$BIN/gen_actions" "$A/clips" $gen_args --jobs "$(nproc)" > "$R/actions-gen.log" 2>&1
  log "== actions: gen_actions $gen_args rc=$? ($(( $(date +%s) - start )) s, $(find "$A/clips" -name '*.avi' | wc -l) clips)"
  i=0
  IFS=';' read -ra sets <<< "${ACT_EVALS:-}"
  [ ${#sets[@]} = 0 ] && sets=("")
  # ACT_JOBS evals at once (default 1); concurrent ones each get their own point cache (two evals
  # with the same front-end settings would otherwise write the same cache entry at once).
  act_jobs=${ACT_JOBS:-1}
  act_one() {
    local i=$1 args=$2 cache=$A/cache start rc
    [ "$act_jobs" -gt 1 ] && cache=$A/cache-$i
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$BIN/cvis-action" eval "$A/clips" --cache "$cache" --verbose $args > "$R/actions-eval-$i.log" 2>&1
    rc=$?
    # Logged as each ends: a call cut off by its limit still reports the finished ones.
    log "== actions: eval $i: $args rc=$rc ($(( $(date +%s) - start )) s): $(grep '^accuracy' "$R/actions-eval-$i.log" | tail -n 1)"
  }
  for args in "${sets[@]}"; do
    i=$((i + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$act_jobs" ]; do wait -n; done
    act_one "$i" "$args" &
  done
  wait
  for k in $(seq 1 "$i"); do
    log "== actions: eval $k, confusion:"
    grep -A 9 '^confusion' "$R/actions-eval-$k.log" | tee -a "$SUMMARY"
  done
  cp "$SUMMARY" "$OUT/summary.txt"
fi

cp "$SUMMARY" "$OUT/summary.txt"
tar -czf "$OUT/results.tgz" -C "$R" .
cat "$SUMMARY"
