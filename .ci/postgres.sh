#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the Hub tests and print the lines to export.
#   eval "$(bash .ci/postgres.sh)"    # then: make test  (tests/hub also run against PostgreSQL)
# Installs PostgreSQL from Debian packages when it is missing (needs root: apt-get). Everything but the
# export lines goes to stderr. The cluster lives in a temporary folder and trusts local connections only;
# stop it with: pg_ctl -D "$GISKARD_NB_TEST_PG_DATA" stop (or let the machine's teardown end it).
set -euo pipefail
log() { echo "postgres.sh: $*" >&2; }
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

BIN="$(find_bin || true)"
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
  log "PostgreSQL not found: installing it from Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  BIN="$(find_bin)"
fi
[ -x "$BIN/initdb" ] || { log "no initdb after installing postgresql"; exit 1; }

PORT="${GISKARD_NB_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
ROOT="$(mktemp -d /tmp/giskard-nb-pg.XXXXXX)"
RUN=()
if [ "$(id -u)" = 0 ]; then
  # The server refuses to run as root: run it as the postgres user the Debian package creates.
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$ROOT"
  RUN=(runuser -u postgres --)
fi
log "initialising a throwaway cluster in $ROOT (port $PORT)"
"${RUN[@]}" "$BIN/initdb" -D "$ROOT/data" -U giskard --auth=trust -E UTF8 >"$ROOT/initdb.log" 2>&1 \
  || { cat "$ROOT/initdb.log" >&2; exit 1; }
"${RUN[@]}" "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $ROOT -c fsync=off -c synchronous_commit=off" start >&2 \
  || { cat "$ROOT/server.log" >&2; exit 1; }
"${RUN[@]}" "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U giskard giskard_nb_test >&2
log "PostgreSQL is up on 127.0.0.1:$PORT (database giskard_nb_test)"
echo "export GISKARD_NB_TEST_PG_URL=postgresql+psycopg://giskard@127.0.0.1:$PORT/giskard_nb_test"
echo "export GISKARD_NB_TEST_PG_DATA=$ROOT/data"
