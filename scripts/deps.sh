#!/usr/bin/env bash
# Installs the Debian 12 packages the build, tests and demo need (skips when all are present).
# Usage: scripts/deps.sh   (as root, or with sudo available)
set -euo pipefail
# The store's tests start Debian's PostgreSQL server: 15 on Debian 12, 17 on trixie (the
# GStreamer 1.26 build of scripts/trixie runs this script inside a trixie tree).
PGV=15
[ -r /etc/os-release ] && . /etc/os-release && [ "${VERSION_CODENAME:-}" = trixie ] && PGV=17
PKGS=(meson ninja-build pkg-config g++ gcc python3 python3-gi
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libsqlite3-dev sqlite3 libgtest-dev libpng-dev xz-utils
  gobject-introspection libgirepository1.0-dev
  libpq-dev postgresql-$PGV postgresql-client-$PGV)
# postgresql: the store's PostgreSQL back end (libpq-dev) and its tests, which start a
# throw-away server (scripts/pg-scratch.sh: initdb, pg_ctl; psql for the tool's test).
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
