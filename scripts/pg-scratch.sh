#!/usr/bin/env bash
# A throw-away PostgreSQL server for the store's tests and benchmarks: initdb in a temporary
# folder, listening only on a Unix socket in that folder (no TCP port), password authentication
# (scram-sha-256) for every connection; stopped and removed at the end, also on failure or a
# signal. As root (CI), the server runs as the user "postgres" when it exists, else "nobody"
# (initdb refuses root), in a folder that user owns.
#
# Usage: scripts/pg-scratch.sh run [--fast] [--] COMMAND [ARG...]
#          Runs COMMAND with the server up and its exit status. --fast: fsync=off (tests; the
#          benchmarks run without it). COMMAND gets:
#            CVIS_PG_URI       postgresql://cvis@/postgres?host=DIR&port=PORT (superuser; the
#                              password comes from PGPASSFILE, never from the URI)
#            CVIS_PG_HOST, CVIS_PG_PORT, CVIS_PG_USER, CVIS_PG_DIR, PGPASSFILE
#            CVIS_PG_CTL       this script: "$CVIS_PG_CTL stop" / "start" stop and start the
#                              server (tests of a server that goes away)
#          When no server can be made (no initdb, no usable user), COMMAND runs anyway with
#          CVIS_PG_SKIP set to the reason, and tests skip their PostgreSQL cases saying so.
#        scripts/pg-scratch.sh stop|start    (inside COMMAND; uses CVIS_PG_DIR)
set -uo pipefail
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  d=$(dirname "$(command -v initdb 2>/dev/null)" 2>/dev/null)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

# as_owner CMD...: runs CMD as the server's owner (recorded in $CVIS_PG_DIR/owner).
as_owner() {
  local owner
  owner=$(cat "$CVIS_PG_DIR/owner")
  if [ "$owner" = "$(id -un)" ]; then "$@"; else runuser -u "$owner" -- "$@"; fi
}

server_opts() {
  local fast=$1
  local o="-c listen_addresses='' -c unix_socket_directories='$CVIS_PG_DIR' -p $CVIS_PG_PORT"
  [ "$fast" = 1 ] && o="$o -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  echo "$o"
}

start() {
  as_owner "$(cat "$CVIS_PG_DIR/bindir")/pg_ctl" start -w -t 60 -D "$CVIS_PG_DIR/data" \
    -l "$CVIS_PG_DIR/server.log" -o "$(server_opts "$(cat "$CVIS_PG_DIR/fast")")" > /dev/null
}

stop() {
  as_owner "$(cat "$CVIS_PG_DIR/bindir")/pg_ctl" stop -w -t 60 -m "${1:-fast}" \
    -D "$CVIS_PG_DIR/data" > /dev/null
}

case "${1:-}" in
  start) start; exit $? ;;
  stop) stop fast; exit $? ;;
  run) shift ;;
  *) sed -n '2,25p' "$0"; exit 2 ;;
esac
FAST=0
[ "${1:-}" = --fast ] && { FAST=1; shift; }
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "pg-scratch: no command" >&2; exit 2; }

BIN=$(bindir)
if [ -z "$BIN" ]; then
  export CVIS_PG_SKIP="no PostgreSQL server programs (initdb) installed (Debian: postgresql-15)"
  echo "pg-scratch: $CVIS_PG_SKIP" >&2
  exec "$@"
fi
OWNER=$(id -un)
if [ "$(id -u)" = 0 ]; then
  OWNER=nobody
  id postgres > /dev/null 2>&1 && OWNER=postgres
  command -v runuser > /dev/null || {
    export CVIS_PG_SKIP="running as root without runuser (util-linux) to start the server as $OWNER"
    exec "$@"
  }
fi
export CVIS_PG_DIR
CVIS_PG_DIR=$(mktemp -d /tmp/cvis-pg.XXXXXX) || { export CVIS_PG_SKIP="mktemp failed"; exec "$@"; }
cleanup() {
  if [ -f "$CVIS_PG_DIR/data/postmaster.pid" ]; then stop immediate 2> /dev/null; fi
  rm -rf "$CVIS_PG_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "$OWNER" > "$CVIS_PG_DIR/owner"
echo "$BIN" > "$CVIS_PG_DIR/bindir"
echo "$FAST" > "$CVIS_PG_DIR/fast"
export CVIS_PG_USER=cvis CVIS_PG_HOST=$CVIS_PG_DIR CVIS_PG_PORT=$((20000 + RANDOM % 20000))
PASSWORD=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
echo "$PASSWORD" > "$CVIS_PG_DIR/pw"
chmod 600 "$CVIS_PG_DIR/pw"
chown -R "$OWNER" "$CVIS_PG_DIR"
chmod 700 "$CVIS_PG_DIR"
if ! as_owner "$BIN/initdb" -D "$CVIS_PG_DIR/data" -U "$CVIS_PG_USER" --pwfile="$CVIS_PG_DIR/pw" \
    --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync > "$CVIS_PG_DIR/initdb.log" 2>&1; then
  tail -n 5 "$CVIS_PG_DIR/initdb.log" >&2
  export CVIS_PG_SKIP="initdb failed (as $OWNER)"
  "$@"
  exit $?
fi
if ! start; then
  tail -n 5 "$CVIS_PG_DIR/server.log" >&2
  export CVIS_PG_SKIP="the server did not start (as $OWNER)"
  "$@"
  exit $?
fi
# The clients' password file (the caller's user reads it; the URI carries no password).
export PGPASSFILE=$CVIS_PG_DIR/pgpass
echo "*:*:*:$CVIS_PG_USER:$PASSWORD" > "$PGPASSFILE"
chown "$(id -un)" "$PGPASSFILE"
chmod 600 "$PGPASSFILE"
rm -f "$CVIS_PG_DIR/pw"
export CVIS_PG_URI="postgresql://$CVIS_PG_USER@/postgres?host=$CVIS_PG_DIR&port=$CVIS_PG_PORT"
export CVIS_PG_CTL=$SELF
unset PGPASSWORD PGHOST PGPORT PGUSER PGDATABASE PGSERVICE
"$@"
