#!/usr/bin/env bash
# Runs a command inside a Debian trixie tree (GStreamer 1.26, Meson 1.7, gcc 14), made by mmdebstrap
# from Debian's archive and reused between calls. The repository is bind-mounted at its own path, so
# build folders and logs are the same inside and outside; mounts live in a private mount namespace
# and vanish when the command ends. Needs root (as CI and the developers' machines are).
#
# Usage: scripts/trixie/env.sh [--with SET[,SET...]] [--] COMMAND [ARG...]
#        scripts/trixie/env.sh --with SETS --setup-only
# Package sets (installed once each, on demand; "base" always):
#   base   build tools and the project's build/test dependencies, GStreamer 1.26 (amd64)
#   cuda   Debian's CUDA toolkit 12.4 (non-free): nvcc, cuobjdump, headers, libcudart_static.a for
#          amd64; unpacked from the packages, without the driver library the packages depend on
#          (libcuda1), so the tree stays a machine without a driver
#   arm64  arm64 multiarch: cross compilers (g++ 14, and 13 for nvcc 12.4), GStreamer 1.26 arm64
#          -dev packages and plugins, qemu-user, and (with cuda) Debian's arm64 libcudart_static.a
# Environment: CVIS_TRIXIE_DIR   the tree (default: build-env/trixie in the repository; ignored by git)
#              CVIS_DEBIAN_MIRROR (default http://deb.debian.org/debian)
#              CVIS_ENV_PASS     extra variable names to pass into the tree (CI, CVIS_*, CUDA_HOME pass)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TREE=${CVIS_TRIXIE_DIR:-$REPO/build-env/trixie}
MIRROR=${CVIS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
CUDA_VER=12.4.127~12.4.1-2      # nvidia-cuda-dev / libcudart12
CUDA_TK_VER=12.4.131~12.4.1-2   # nvidia-cuda-toolkit / libnvvm4

SETS=base
SETUP_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --with) SETS="base,$2"; shift 2 ;;
    --with=*) SETS="base,${1#--with=}"; shift ;;
    --setup-only) SETUP_ONLY=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $SETUP_ONLY = 1 ] || [ $# -gt 0 ] || { echo "env.sh: no command (see --help)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "env.sh: needs root (mmdebstrap, chroot, mounts)" >&2; exit 2; }

PKGS_base=(build-essential meson ninja-build pkgconf python3 python3-gi file git ca-certificates
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libsqlite3-dev sqlite3 libgtest-dev libpng-dev xz-utils)
# nvcc 12.4 accepts gcc <= 13; the packages' other dependencies (cuBLAS, cuFFT, ..., libcuda1) are
# not needed to compile and link our code, hence unpacking instead of installing.
PKGS_cuda=(g++-13)
DEBS_cuda=("nvidia-cuda-toolkit=$CUDA_TK_VER" "libnvvm4=$CUDA_TK_VER" "nvidia-cuda-dev=$CUDA_VER")
PKGS_arm64=(crossbuild-essential-arm64 g++-13-aarch64-linux-gnu qemu-user
  libgstreamer1.0-dev:arm64 libgstreamer-plugins-base1.0-dev:arm64
  libgstreamer-plugins-bad1.0-dev:arm64 gstreamer1.0-plugins-base:arm64
  gstreamer1.0-plugins-good:arm64 gstreamer1.0-plugins-bad:arm64
  libsqlite3-dev:arm64 libgtest-dev:arm64 libpng-dev:arm64)

log() { echo "trixie-env: $*" >&2; }

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

have_set() { grep -qx "$1" "$TREE/.cvis-sets" 2>/dev/null; }

create_tree() {
  command -v mmdebstrap >/dev/null || {
    log "installing mmdebstrap on the host"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null; }
  }
  log "creating $TREE (Debian $SUITE from $MIRROR)"
  rm -rf "$TREE.new"
  mkdir -p "$(dirname "$TREE")"
  mmdebstrap --quiet --variant=apt --architectures=amd64 --components="main contrib non-free" \
    --include="$(IFS=,; echo "${PKGS_base[*]}")" "$SUITE" "$TREE.new" "$MIRROR" >&2
  echo base > "$TREE.new/.cvis-sets"
  mv "$TREE.new" "$TREE"
}

install_set() {
  local set=$1
  log "installing package set '$set'"
  case "$set" in
    cuda)
      in_tree bash -c '
        set -e; export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null' bash "${PKGS_cuda[@]}"
      unpack_debs amd64 "${DEBS_cuda[@]}"
      ;;
    arm64)
      in_tree bash -c '
        set -e; export DEBIAN_FRONTEND=noninteractive
        dpkg --add-architecture arm64
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null' bash "${PKGS_arm64[@]}"
      ;;
    *) echo "env.sh: unknown package set '$set'" >&2; exit 2 ;;
  esac
  # Debian's arm64 libcudart_static.a, once both sets are there (the only arm64 CUDA file needed).
  if { [ "$set" = arm64 ] && have_set cuda; } || { [ "$set" = cuda ] && have_set arm64; }; then
    unpack_debs arm64 "nvidia-cuda-dev:arm64=$CUDA_VER" -- ./usr/lib/aarch64-linux-gnu/libcudart_static.a
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
    apt-get download -qq "${pkgs[@]}"
    for p in "${pkgs[@]}"; do
      n=${p%%=*}; n=${n%%:*}
      f=$(ls "${n}"_*_"$arch".deb "${n}"_*_all.deb 2>/dev/null | head -n 1)
      [ -n "$f" ] || { echo "download of $p failed" >&2; exit 1; }
      if [ $# -gt 0 ]; then dpkg-deb --fsys-tarfile "$f" | tar -x -C / "$@"
      else dpkg-deb -x "$f" /; fi
      rm -f "$f"
    done' bash "$arch" "${pkgs[@]}" -- "${paths[@]}"
}

mkdir -p "$(dirname "$TREE")"
exec 9> "$TREE.lock"
flock 9
[ -f "$TREE/.cvis-sets" ] || create_tree
IFS=, read -r -a want <<< "$SETS"
for s in "${want[@]}"; do
  [ "$s" = base ] || have_set "$s" || install_set "$s"
done
flock -u 9
[ $SETUP_ONLY = 1 ] && exit 0
in_tree "$@"
