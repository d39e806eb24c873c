#!/usr/bin/env bash
# One device call that verifies a merged tree on the GPU host: every gpu- and cpu-suite binary
# (run.sh tests) and, beside it, compute-sanitizer's four tools over the binaries named in
# VERIFY_SAN (each its own run; SAN_SPLIT as run.sh), then the benchmarks named in VERIFY_BENCH
# (';'-separated "binary args" entries, one at a time, nothing else on the GPU; an entry's args are
# read as shell words, so a quoted argument may hold spaces). Everything is
# cut off at VERIFY_LIMIT seconds (default 560) so the summary comes back within one call.
# Usage (after scripts/gpu/prepare.sh, .device carried):
#   VERIFY_SAN="test_motion_gpu test_cudamedian3d_cuda" \
#   VERIFY_BENCH="bench_motion --no-cpu;bench_actionmatch --no-cpu --runs 200" bash scripts/gpu/verify.sh
# Results: $OUT/verify.txt (summary) and $OUT/verify.tgz (logs).
set -u
ROOT=$PWD; D=$ROOT/.device; T0=$(date +%s); LIMIT=${VERIFY_LIMIT:-560}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
S=$OUT/verify.txt
t() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$S"; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
CVIS_RESULTS=/tmp/v-tests OUT=/tmp/v-o1 bash scripts/gpu/run.sh tests > /tmp/v-tests.log 2>&1 &
TESTS=$!
SAN=""
if [ -n "${VERIFY_SAN:-}" ]; then
  printf '%s\n' ${VERIFY_SAN} > "$D/gpu-tests.txt"
  sleep 20 # run.sh tests unpacks the binaries first
  SAN_TIMEOUT=${SAN_TIMEOUT:-$(( $(left) - 120 ))} CVIS_JOBS=${SAN_JOBS:-10} CVIS_NO_EXTRACT=1 CVIS_RESULTS=/tmp/v-san \
    OUT=/tmp/v-o2 bash scripts/gpu/run.sh sanitize > /tmp/v-san.log 2>&1 &
  SAN=$!
fi
wait $TESTS; t "tests done"
grep -E 'rc=|tap' /tmp/v-tests/summary.txt | tee -a "$S"
[ -n "$SAN" ] && { wait $SAN; t "sanitizer done"; grep -A 40 '^| binary' /tmp/v-san/summary.txt | tee -a "$S"; }
. /tmp/gstbundle/gst-env.sh
export LD_LIBRARY_PATH=$D/lib:$LD_LIBRARY_PATH CVIS_TESTDATA=$D/testdata CVIS_TEST_H264=$D/media/test-1080p.mp4
rm -rf /tmp/v-bench && mkdir -p /tmp/v-bench # a warm host keeps the last call's logs
IFS=';' read -ra benches <<< "${VERIFY_BENCH:-}"
n=0
for b in "${benches[@]}"; do
  [ -z "$b" ] && continue
  [ "$(left)" -lt 20 ] && { t "no time left for: $b"; continue; }
  n=$((n + 1)); log=/tmp/v-bench/$n-$(echo "$b" | awk '{print $1}').log
  eval "timeout $(( $(left) - 10 )) /tmp/cvis-bin/$b" > "$log" 2>&1
  t "== $b: rc=$?"
  tail -n 25 "$log" >> "$S"
done
tar -czf "$OUT/verify.tgz" -C /tmp v-tests v-san v-bench 2>/dev/null
t end
