#!/usr/bin/env bash
# Runs a command inside a Debian trixie tree (GStreamer 1.26, Meson 1.7, gcc 14), made by mmdebstrap
# from Debian's archive and reused between calls. The repository is bind-mounted at its own path, so
# build folders and logs are the same inside and outside; mounts live in a private mount namespace
# and vanish when the command ends. Needs root (as CI and the developers' machines are).
#
# Usage: scripts/trixie/env.sh [--tree NAME] [--with SET[,SET...]] [--] COMMAND [ARG...]
#        scripts/trixie/env.sh [--tree NAME] --with SETS --setup-only
# Trees: NAME (default "trixie") is a folder of CVIS_ENV_DIR. A new tree other than "trixie" starts
# as a copy of "trixie" when that one exists (cheaper than a second bootstrap). Debian's GStreamer
# -dev packages are not co-installable for two architectures, so the arm64 cross build has its own
# tree (scripts/jetson/cross-build.sh uses "trixie-arm64"): installing "arm64" replaces the amd64
# GStreamer -dev packages of that tree.
# Package sets (installed once each, on demand; "base" always):
#   base   build tools and the project's build/test dependencies, GStreamer 1.26 (amd64)
#   cuda   Debian's CUDA toolkit 12.4 (non-free): nvcc, cuobjdump, headers, libcudart_static.a for
#          amd64; unpacked from the packages (only those files), without the driver library the
#          packages depend on (libcuda1), so the tree stays a machine without a driver
#   arm64  arm64 multiarch: cross compilers (g++ 14, and 13 for nvcc 12.4), GStreamer 1.26 arm64
#          -dev packages and plugins, qemu-user, and (with cuda) Debian's arm64 libcudart_static.a
#          and libcudadevrt.a
# Environment: CVIS_ENV_DIR      where trees live (default: build-env in the repository; ignored by git)
#              CVIS_DEBIAN_MIRROR (default http://deb.debian.org/debian; a space-separated list is
#                                 tried in turn when the archive cannot be reached)
#              CVIS_ENV_TRIES    attempts per setup step (default 4; waits 15, 60, 120 s between):
#                                CI once failed on a transient archive error (apt-get update and a
#                                package download, the same minute, two trees)
#              CVIS_ENV_PASS     extra variable names to pass into the tree (CI, CVIS_*, CUDA_HOME pass)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ENV_DIR=${CVIS_ENV_DIR:-$REPO/build-env}
NAME=trixie
MIRRORS=(${CVIS_DEBIAN_MIRROR:-http://deb.debian.org/debian http://ftp.debian.org/debian})
MIRROR=${MIRRORS[0]}
TRIES=${CVIS_ENV_TRIES:-4}
SUITE=trixie
CUDA_VER=12.4.127~12.4.1-2      # nvidia-cuda-dev / libcudart12
CUDA_TK_VER=12.4.131~12.4.1-2   # nvidia-cuda-toolkit / libnvvm4

SETS=base
SETUP_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tree) NAME=$2; shift 2 ;;
    --with) SETS="base,$2"; shift 2 ;;
    --with=*) SETS="base,${1#--with=}"; shift ;;
    --setup-only) SETUP_ONLY=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
TREE=$ENV_DIR/$NAME
[ $SETUP_ONLY = 1 ] || [ $# -gt 0 ] || { echo "env.sh: no command (see --help)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "env.sh: needs root (mmdebstrap, chroot, mounts)" >&2; exit 2; }

PKGS_base=(build-essential meson ninja-build pkg-config python3 python3-gi file git ca-certificates
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libsqlite3-dev sqlite3 libgtest-dev libpng-dev xz-utils libpq-dev postgresql-17 postgresql-client-17)
# nvcc 12.4 accepts gcc <= 13; the packages' other dependencies (cuBLAS, cuFFT, ..., libcuda1) are
# not needed to compile and link our code, hence unpacking instead of installing.
PKGS_cuda=(g++-13)
DEBS_cuda=("nvidia-cuda-toolkit=$CUDA_TK_VER" "libnvvm4=$CUDA_TK_VER")
# Of nvidia-cuda-dev (2.4 GB unpacked, mostly static cuBLAS/cuFFT/...): the headers and cudart.
FILES_cuda_dev=(./usr/include ./usr/lib/x86_64-linux-gnu/libcudart_static.a
  ./usr/lib/x86_64-linux-gnu/libcudadevrt.a)
# No gstreamer1.0-plugins-bad:arm64: the cpu suite needs none of its elements, and under
# qemu-user its onnx plugin throws from onnxruntime while the registry loads it in-process
# ("Attempt to use DefaultLogger but none has been registered"), failing every gst_init.
PKGS_arm64=(crossbuild-essential-arm64 g++-13-aarch64-linux-gnu qemu-user
  libgstreamer1.0-dev:arm64 libgstreamer-plugins-base1.0-dev:arm64
  libgstreamer-plugins-bad1.0-dev:arm64 gstreamer1.0-plugins-base:arm64
  gstreamer1.0-plugins-good:arm64
  libsqlite3-dev:arm64 libgtest-dev:arm64 libpng-dev:arm64)

log() { echo "trixie-env: $*" >&2; }

# retry STEP CMD...: runs CMD up to TRIES times (the archive or the network may fail for a while).
retry() {
  local step=$1 i waits=(15 60 120 120 120); shift
  for ((i = 1; ; i++)); do
    "$@" && return 0
    [ "$i" -lt "$TRIES" ] || { log "$step failed $i times, giving up"; return 1; }
    log "$step failed (attempt $i of $TRIES); again in ${waits[i-1]:-120} s"
    sleep "${waits[i-1]:-120}"
  done
}

# Runs "$@" in the tree with the repository, /proc and /dev mounted (private mount namespace).
in_tree() {
  local cwd=$PWD
  case "$cwd/" in "$REPO"/*) ;; *) cwd=$REPO ;; esac
  local pass=(HOME=/root LANG=C.UTF-8 "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
  local v
  for v in $(compgen -e); do
    case "$v" in CI|CVIS_*|CUDA_HOME|TERM|DEBIAN_FRONTEND|MESON_*|GST_DEBUG*) pass+=("$v=${!v}") ;; esac
  done
  for v in ${CVIS_ENV_PASS:-}; do [ -n "${!v+x}" ] && pass+=("$v=${!v}"); done
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    tree=$1 repo=$2 cwd=$3; shift 3
    mount -t proc proc "$tree/proc"
    mount --rbind /dev "$tree/dev"
    mkdir -p "$tree$repo" "$tree/tmp"
    mount --bind "$repo" "$tree$repo"
    cp -L /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$tree" /usr/bin/env -i "$@"' bash "$TREE" "$REPO" "$cwd" \
    "${pass[@]}" /bin/bash -c 'cd "$0" && exec "$@"' "$cwd" "$@"
}

have_set() { [ "$1" = base ] || grep -qx "$1" "$TREE/.cvis-sets" 2>/dev/null; }

# One mmdebstrap attempt, from the next mirror of the list. unsafe-io: no fsync per file (a
# throwaway tree; several times faster on a busy disk); it stays in the tree's dpkg configuration
# for the package sets installed later, as apt's Acquire::Retries does for their downloads.
BOOT_N=0
bootstrap() {
  MIRROR=${MIRRORS[BOOT_N % ${#MIRRORS[@]}]}
  BOOT_N=$((BOOT_N + 1))
  log "creating $TREE (Debian $SUITE from $MIRROR)"
  rm -rf "$TREE.new"
  mmdebstrap --quiet --variant=apt --architectures=amd64 --components="main contrib non-free" \
    --dpkgopt=force-unsafe-io --aptopt='Acquire::Languages "none"' --aptopt='Acquire::Retries "5"' \
    --include="$(IFS=,; echo "${PKGS_base[*]}")" "$SUITE" "$TREE.new" "$MIRROR" >&2
}

create_tree() {
  command -v mmdebstrap >/dev/null || {
    log "installing mmdebstrap on the host"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null; }
  }
  rm -rf "$TREE.new"
  mkdir -p "$(dirname "$TREE")"
  local seed=$ENV_DIR/trixie
  if [ "$TREE" != "$seed" ] && [ -f "$seed/.cvis-sets" ]; then
    log "creating $TREE as a copy of $seed"
    flock "$seed.lock" cp -a "$seed" "$TREE.new"   # not while the seed is being set up
    mv "$TREE.new" "$TREE"
    return
  fi
  retry "bootstrap of $TREE" bootstrap
  echo base > "$TREE.new/.cvis-sets"
  mv "$TREE.new" "$TREE"
}

install_set() {
  local set=$1
  log "installing package set '$set'"
  case "$set" in
    cuda)
      retry "install of set cuda" in_tree bash -c '
        set -e; export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null
        apt-get clean' bash "${PKGS_cuda[@]}"
      retry "download of the CUDA toolkit" unpack_debs amd64 "${DEBS_cuda[@]}"
      retry "download of nvidia-cuda-dev" unpack_debs amd64 "nvidia-cuda-dev=$CUDA_VER" -- "${FILES_cuda_dev[@]}"
      ;;
    arm64)
      retry "install of set arm64" in_tree bash -c '
        set -e; export DEBIAN_FRONTEND=noninteractive
        dpkg --add-architecture arm64
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null
        apt-get clean' bash "${PKGS_arm64[@]}"
      ;;
    *) echo "env.sh: unknown package set '$set'" >&2; exit 2 ;;
  esac
  # Debian's arm64 libcudart_static.a (and libcudadevrt.a, which nvcc links), once both sets are
  # there: the only arm64 CUDA files needed.
  if { [ "$set" = arm64 ] && have_set cuda; } || { [ "$set" = cuda ] && have_set arm64; }; then
    retry "download of nvidia-cuda-dev:arm64" unpack_debs arm64 "nvidia-cuda-dev:arm64=$CUDA_VER" -- ./usr/lib/aarch64-linux-gnu/libcudart_static.a \
      ./usr/lib/aarch64-linux-gnu/libcudadevrt.a
  fi
  echo "$set" >> "$TREE/.cvis-sets"
}

# unpack_debs ARCH PKG=VER... [-- PATHS...]: downloads the packages from the archive (apt-get
# download, in the tree) and unpacks them (or only PATHS of them) into the tree's root.
unpack_debs() {
  local arch=$1; shift
  local pkgs=() paths=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pkgs+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; paths=("$@"); }
  in_tree bash -c '
    set -e
    arch=$1; shift
    pkgs=(); while [ "$1" != -- ]; do pkgs+=("$1"); shift; done; shift
    d=/var/cache/cvis-debs; mkdir -p "$d"; cd "$d"
    apt-get -o APT::Sandbox::User=root download -qq "${pkgs[@]}"
    for p in "${pkgs[@]}"; do
      n=${p%%=*}; n=${n%%:*}
      f=$(ls "${n}"_*_"$arch".deb "${n}"_*_all.deb 2>/dev/null | head -n 1)
      [ -n "$f" ] || { echo "download of $p failed" >&2; exit 1; }
      if [ $# -gt 0 ]; then dpkg-deb --fsys-tarfile "$f" | tar -x -C / "$@"
      else dpkg-deb -x "$f" /; fi
      rm -f "$f"
    done' bash "$arch" "${pkgs[@]}" -- "${paths[@]}"
}

IFS=, read -r -a want <<< "$SETS"
complete() {
  [ -f "$TREE/.cvis-sets" ] || return 1
  local s
  for s in "${want[@]}"; do have_set "$s" || return 1; done
}
if ! complete; then   # set up under a lock (another call may be doing it); commands run unlocked
  mkdir -p "$(dirname "$TREE")"
  exec 9> "$TREE.lock"
  flock 9
  [ -f "$TREE/.cvis-sets" ] || create_tree
  for s in "${want[@]}"; do
    [ "$s" = base ] || have_set "$s" || install_set "$s"
  done
  flock -u 9
fi
[ $SETUP_ONLY = 1 ] && exit 0
in_tree "$@"
