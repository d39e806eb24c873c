#!/usr/bin/env bash
# Checks with cuobjdump that a binary's embedded CUDA code holds SASS for every architecture in
# LIST, in every object that has device code, and PTX for the last one (what -Dcuda-arch asks).
# Usage: scripts/jetson/check-fatbin.sh FILE LIST        e.g. build-aarch64/gst/libgstcudavision.so 72,87
# Environment: CUOBJDUMP (default: cuobjdump on PATH)
set -euo pipefail
file=$1
IFS=, read -r -a sms <<< "$2"
cuobjdump=${CUOBJDUMP:-cuobjdump}
elf=$("$cuobjdump" --list-elf "$file")
ptx=$("$cuobjdump" --list-ptx "$file")
# One cubin per object and architecture: every architecture must appear as often as the first.
n0=$(grep -c "\.sm_${sms[0]}\.cubin" <<< "$elf" || true)
ok=1
[ "$n0" -gt 0 ] || { echo "check-fatbin: no sm_${sms[0]} cubin in $file"; ok=0; }
for sm in "${sms[@]}"; do
  n=$(grep -c "\.sm_${sm}\.cubin" <<< "$elf" || true)
  echo "check-fatbin: sm_${sm}: $n cubin(s)"
  if [ "$n" -ne "$n0" ] || [ "$n" -eq 0 ]; then
    echo "check-fatbin: sm_${sm} SASS missing in some objects"; ok=0
  fi
done
last=${sms[${#sms[@]}-1]}
np=$(grep -c "\.sm_${last}\.ptx" <<< "$ptx" || true)
echo "check-fatbin: compute_${last} PTX: $np"
[ "$np" -eq "$n0" ] || { echo "check-fatbin: PTX for compute_${last} missing in some objects"; ok=0; }
# Other architectures: nvcc's device-link step adds a cubin for its default architecture (sm_52
# with nvcc 12, sm_75 with 13) that holds no kernel; code for an architecture not asked for fails.
others=$(grep -oE "\.sm_[0-9]+[a-z]?\.cubin" <<< "$elf" | sort -u | sed -E 's/\.sm_([0-9]+[a-z]?)\.cubin/\1/' |
  grep -vxE "$(IFS='|'; echo "${sms[*]}")" || true)
for sm in $others; do
  nfun=$("$cuobjdump" -elf -arch "sm_$sm" "$file" | grep -cE "[[:space:]]\.text\." || true)
  if [ "$nfun" -eq 0 ]; then
    echo "check-fatbin: note: an sm_$sm cubin without kernels (nvcc's device-link stub)"
  else
    echo "check-fatbin: unexpected sm_$sm code ($nfun kernel sections)"; ok=0
  fi
done
[ $ok = 1 ] && echo "check-fatbin: $file holds sm_$(IFS=,; echo "${sms[*]}") SASS and compute_$last PTX"
[ $ok = 1 ]
