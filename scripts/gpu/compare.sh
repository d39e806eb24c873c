#!/usr/bin/env bash
# Runs on the GPU host, carrying .device (scripts/gpu/prepare.sh: the build under test) and
# .device-base (scripts/gpu/stage-baseline.sh: an earlier commit's binaries): the tests named in
# CMP_TESTS with both builds, then the benchmark lines of CMP_BENCH (';'-separated "binary args")
# alternating base, new, base, new (CMP_ROUNDS rounds, default 2), nothing else on the GPU.
# Results: $OUT/compare.txt (summary: each benchmark's last CMP_TAIL lines) and $OUT/compare.tgz.
# Usage: CMP_TESTS="test_a_gpu test_b_gpu" CMP_BENCH="bench_a --no-cpu;bench_b" bash scripts/gpu/compare.sh
set -u
ROOT=$PWD; D=$ROOT/.device; T0=$(date +%s); LIMIT=${CMP_LIMIT:-560}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
S=$OUT/compare.txt; R=/tmp/cmp; rm -rf "$R"; mkdir -p "$R"
t() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$S"; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
# CMP_REUSE=1: the builds an earlier call on this (still warm) machine unpacked, so that a call can
# carry only what it adds (a long clip that would not fit beside both builds).
if [ -z "${CMP_REUSE:-}" ]; then
  tar -xJf "$D/gst-bundle.tar.xz" -C /tmp
  rm -rf /tmp/cvis-bin && mkdir -p /tmp/cvis-bin && tar -xJf "$D/bin.tar.xz" -C /tmp/cvis-bin --strip-components=1
  rm -rf /tmp/cvis-lib && cp -a "$D/lib" /tmp/cvis-lib
  rm -rf /tmp/base && tar -xJf "$ROOT/.device-base/base.tar.xz" -C /tmp
fi
export GST_BUNDLE_NO_NVENC=1
. /tmp/gstbundle/gst-env.sh
export CVIS_TESTDATA=$D/testdata CVIS_REQUIRE_GPU=1 CVIS_TEST_H264=$D/media/test-1080p.mp4
# The base build's libraries first; test-only ones (libgstcheck) from the new staging.
NEW_LD=/tmp/cvis-lib:$LD_LIBRARY_PATH BASE_LD=/tmp/base/lib:/tmp/cvis-lib:$LD_LIBRARY_PATH
# The base build's element tests load the base plugin (its own registry), the new ones the bundle's.
base_env() { env LD_LIBRARY_PATH="$BASE_LD" GST_PLUGIN_SYSTEM_PATH_1_0="$GST_BUNDLE/lib/gstreamer-1.0:/tmp/base/plugin" \
  GST_REGISTRY_1_0=/tmp/gst-registry-base.bin "$@"; }
new_env() { env LD_LIBRARY_PATH="$NEW_LD" "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$S"
t "base $(cat /tmp/base/COMMIT), new $(cat "$D/COMMIT" 2>/dev/null)"
for n in ${CMP_TESTS:-}; do
  for side in base new; do
    bin=/tmp/cvis-bin/$n; [ $side = base ] && bin=/tmp/base/bin/$n
    [ -x "$bin" ] || { t "$side $n: missing"; continue; }
    ${side}_env timeout 300 "$bin" --gtest_brief=1 > "$R/$side-$n.log" 2>&1
    t "$side $n: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$R/$side-$n.log" | tr '\n' ' ')"
  done
done
IFS=';' read -ra benches <<< "${CMP_BENCH:-}"
for round in $(seq "${CMP_ROUNDS:-2}"); do
  for b in "${benches[@]}"; do
    [ -z "$b" ] && continue
    name=$(echo "$b" | awk '{print $1}'); args=${b#"$name"}
    for side in base new; do
      [ "$(left)" -lt 30 ] && { t "no time left: $side $b"; continue; }
      bin=/tmp/cvis-bin/$name; [ $side = base ] && bin=/tmp/base/bin/$name
      L="$R/$side-$name-r$round-$(echo "$args" | tr -c 'A-Za-z0-9' '_' | cut -c1-60).log"
      # shellcheck disable=SC2086
      ${side}_env timeout $(( $(left) - 20 )) "$bin" $args > "$L" 2>&1
      t "== $side round $round: $b: rc=$?"
      tail -n "${CMP_TAIL:-12}" "$L" >> "$S"
    done
  done
done
tar -czf "$OUT/compare.tgz" -C /tmp cmp 2>/dev/null
t end
