#!/usr/bin/env bash
# Self-check for a Jetson (or any machine): reports the device, JetPack / L4T, GStreamer and CUDA
# versions and the plugin's features, runs the gpu test suite of a build and one camera-free
# pipeline per element (system memory; CUDA memory through cudaupload; NVMM through nvvidconv +
# cudaupload where those exist), and ends with a summary to paste into a bug report and the line
# "N passed, N failed".
#
# Usage: scripts/jetson/selfcheck.sh [--build DIR] [--no-suite] [--report FILE] [--dry-run]
#   --build DIR   the Meson build folder with the plugin (default: build)
#   --no-suite    skip `meson test --suite gpu`
#   --report FILE also write the summary there (default: DIR/selfcheck-report.txt)
#   --dry-run     print the commands it would run instead of running the suite and pipelines
# Environment: CVIS_SELFCHECK_ROOT  prefix for the files it reads (/etc/nv_tegra_release,
#              /proc/device-tree/model, ...; for tests), CVIS_SELFCHECK_FRAMES (default 60).
set -uo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=build SUITE=1 DRY=0 REPORT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --no-suite) SUITE=0; shift ;;
    --report) REPORT=$2; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "selfcheck: unknown argument $1" >&2; exit 2 ;;
  esac
done
# BUILD as given (relative to the caller's folder, or to the repository when run from elsewhere).
case "$BUILD" in /*) ;; *) [ -d "$BUILD" ] || BUILD=$HERE/$BUILD; BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD") ;; esac
cd "$HERE" || exit 1
ROOT=${CVIS_SELFCHECK_ROOT:-}
FRAMES=${CVIS_SELFCHECK_FRAMES:-60}
REPORT=${REPORT:-$BUILD/selfcheck-report.txt}
PASS=0 FAIL=0
SUMMARY=()

note() { SUMMARY+=("$1"); echo "selfcheck: $1"; }
first_line() { head -n 1 | tr -d '\0' | sed 's/[[:space:]]*$//'; }

# JetPack from L4T: r35 = JetPack 5.1.x, r36 = 6.x (36.3 = 6.0, 36.4 = 6.1/6.2), r38 = 7.x.
jetpack_of_l4t() {
  case "$1" in
    35.*) echo "5.1.x" ;;
    36.2*) echo "6.0 DP" ;;
    36.3*) echo "6.0" ;;
    36.4.0*) echo "6.1" ;;
    36.4*) echo "6.2" ;;
    36.*) echo "6.x" ;;
    38.*) echo "7.x" ;;
    32.*) echo "4.x (unsupported: CUDA 10.2)" ;;
    *) echo "unknown" ;;
  esac
}

# --- the machine --------------------------------------------------------------------------------
model=$( { first_line < "$ROOT/proc/device-tree/model"; } 2>/dev/null || true)
note "machine: $(uname -m), ${model:-no device-tree model (not a Jetson?)}, kernel $(uname -r)"
l4t=""
if [ -r "$ROOT/etc/nv_tegra_release" ]; then
  # "# R36 (release), REVISION: 4.3, GCID: ..., BOARD: generic, EABI: aarch64, DATE: ..."
  l4t=$(sed -nE 's/^# R([0-9]+) \(release\), REVISION: ([0-9.]+).*/\1.\2/p' "$ROOT/etc/nv_tegra_release")
fi
jp_pkg=$(dpkg-query -W -f='${Version}' nvidia-jetpack 2>/dev/null || true)
if [ -n "$l4t" ]; then
  note "L4T $l4t, JetPack $(jetpack_of_l4t "$l4t")${jp_pkg:+ (nvidia-jetpack $jp_pkg)}"
else
  note "L4T: none (/etc/nv_tegra_release absent)"
fi

# --- CUDA ----------------------------------------------------------------------------------------
nvcc_v=$(nvcc --version 2>/dev/null | sed -nE 's/.*release ([0-9.]+).*/\1/p' || true)
[ -z "$nvcc_v" ] && [ -x /usr/local/cuda/bin/nvcc ] &&
  nvcc_v=$(/usr/local/cuda/bin/nvcc --version | sed -nE 's/.*release ([0-9.]+).*/\1/p')
note "CUDA toolkit (nvcc): ${nvcc_v:-not found}"
# The driver as the plugin sees it: libcuda.so.1 through ctypes (no toolkit needed).
drv=$(python3 - <<'EOF' 2>/dev/null || echo "python3 failed"
import ctypes
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    print("no libcuda.so.1 (%s)" % e); raise SystemExit
v = ctypes.c_int(0); n = ctypes.c_int(0)
r = cu.cuInit(0)
if r != 0:
    print("libcuda.so.1 loads, cuInit failed (CUresult %d)" % r); raise SystemExit
cu.cuDriverGetVersion(ctypes.byref(v)); cu.cuDeviceGetCount(ctypes.byref(n))
out = "driver CUDA %d.%d, %d device(s)" % (v.value // 1000, v.value % 1000 // 10, n.value)
for i in range(n.value):
    d = ctypes.c_int(0); name = ctypes.create_string_buffer(128)
    ma = ctypes.c_int(0); mi = ctypes.c_int(0)
    cu.cuDeviceGet(ctypes.byref(d), i); cu.cuDeviceGetName(name, 128, d)
    cu.cuDeviceGetAttribute(ctypes.byref(ma), 75, d); cu.cuDeviceGetAttribute(ctypes.byref(mi), 76, d)
    out += "; %d: %s sm_%d%d" % (i, name.value.decode(), ma.value, mi.value)
print(out)
EOF
)
note "CUDA driver: $drv"

# --- GStreamer ---------------------------------------------------------------------------------------
gst_v=$(gst-launch-1.0 --version 2>/dev/null | sed -nE 's/.*GStreamer ([0-9.]+).*/\1/p' | first_line || true)
gstcuda_v=$(pkg-config --modversion gstreamer-cuda-1.0 2>/dev/null || echo "absent")
note "GStreamer: ${gst_v:-not found}; gstreamer-cuda-1.0: $gstcuda_v"
have() { gst-inspect-1.0 --exists "$1" 2>/dev/null; }
avail=()
for e in cudaupload cudadownload nvvidconv nvv4l2decoder nvarguscamerasrc; do
  if have "$e"; then avail+=("$e"); fi
done
note "upstream/NVIDIA elements: ${avail[*]:-none of cudaupload cudadownload nvvidconv nvv4l2decoder nvarguscamerasrc}"
has_el() { local x; for x in "${avail[@]}"; do [ "$x" = "$1" ] && return 0; done; return 1; }

# --- the plugin ---------------------------------------------------------------------------------
export GST_PLUGIN_PATH="$BUILD/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
insp=$(gst-inspect-1.0 cudavision 2>&1 || true)
elements=$(sed -nE 's/^ *(cuda[a-z0-9]+): .*/\1/p' <<< "$insp" | sort -u | tr '\n' ' ')
plug_v=$(sed -nE 's/^ *Version[[:space:]]+([^ ]+).*/\1/p' <<< "$insp" | first_line)
if [ -z "$elements" ]; then
  note "plugin cudavision: NOT FOUND in $BUILD/gst ($(first_line <<< "$insp"))"
  FAIL=$((FAIL + 1))
else
  note "plugin cudavision ${plug_v:-?}: ${elements% }"
  PASS=$((PASS + 1))
fi

run_check() {  # NAME COMMAND...: one counted check, output in the build folder
  local name=$1; shift
  local log
  log="$BUILD/selfcheck-$(tr -c 'a-zA-Z0-9_-' '_' <<< "$name").log"
  if [ $DRY = 1 ]; then
    echo "selfcheck: would run [$name]: $*"
    return
  fi
  local t0=$SECONDS
  if timeout 300 "$@" > "$log" 2>&1; then
    PASS=$((PASS + 1)); note "PASS $name ($((SECONDS - t0)) s)"
  else
    FAIL=$((FAIL + 1)); note "FAIL $name ($((SECONDS - t0)) s; log: $log; last line: $(tail -n 1 "$log")"
  fi
}

# --- the gpu suite ---------------------------------------------------------------------------------
if [ $SUITE = 1 ]; then
  if [ $DRY = 1 ]; then
    echo "selfcheck: would run: CVIS_REQUIRE_GPU=1 meson test -C $BUILD --suite gpu"
  elif [ -f "$BUILD/build.ninja" ]; then
    CVIS_REQUIRE_GPU=1 meson test -C "$BUILD" --suite gpu --num-processes 1 > "$BUILD/selfcheck-gpu-suite.log" 2>&1
    line=$(python3 scripts/test_summary.py "$BUILD/meson-logs/testlog.junit.xml" | tail -n 1)
    read -r p _ f _ <<< "$line"
    PASS=$((PASS + ${p:-0})); FAIL=$((FAIL + ${f:-1}))
    note "gpu suite: $line (log: $BUILD/selfcheck-gpu-suite.log)"
  else
    note "gpu suite: skipped ($BUILD is not a Meson build folder)"
  fi
fi

# --- one camera-free pipeline per element and memory kind ------------------------------------------
src=(videotestsrc "num-buffers=$FRAMES" pattern=ball ! "video/x-raw,format=RGBA,width=640,height=480,framerate=30/1")
for e in $elements; do
  run_check "$e system memory, backend=cuda" \
    gst-launch-1.0 -q "${src[@]}" ! "$e" backend=cuda ! fakesink
  if has_el cudaupload; then
    run_check "$e CUDA memory (cudaupload)" \
      gst-launch-1.0 -q "${src[@]}" ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! "$e" backend=cuda ! fakesink
  fi
  if has_el nvvidconv && has_el cudaupload; then
    run_check "$e NVMM -> CUDA memory (nvvidconv ! cudaupload)" \
      gst-launch-1.0 -q "${src[@]}" ! nvvidconv ! "video/x-raw(memory:NVMM),format=RGBA" ! cudaupload ! \
      "video/x-raw(memory:CUDAMemory)" ! "$e" backend=cuda ! fakesink
  fi
done

# --- summary -------------------------------------------------------------------------------------
if [ $DRY = 0 ]; then
  mkdir -p "$(dirname "$REPORT")"
  {
    echo "gst-cuda-vision selfcheck, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"
    printf '%s\n' "${SUMMARY[@]}"
    echo "$PASS passed, $FAIL failed"
  } > "$REPORT"
  echo "selfcheck: ---- paste this into a bug report ($REPORT) ----"
  cat "$REPORT"
fi
echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
