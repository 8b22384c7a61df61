#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on loopback for the test suite and prints the URL to export as
# AGENTD_TEST_POSTGRES_URL. PostgreSQL refuses to run as root, so as root the cluster belongs to the
# `postgres` user that Debian's package creates.
#   usage: eval "$(scripts/test-postgres.sh start)"   |   scripts/test-postgres.sh stop
set -euo pipefail

port=${AGENTD_TEST_POSTGRES_PORT:-54329}
dir=${AGENTD_TEST_POSTGRES_DIR:-${TMPDIR:-/tmp}/agentd-test-postgres-$port}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "PostgreSQL server binaries not found: apt-get install postgresql" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-start}" in
  start)
    if [ ! -f "$dir/PG_VERSION" ]; then
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
      as_owner "$bin/initdb" -D "$dir" -U agentd --auth=trust >"$dir.initdb.log" 2>&1 ||
        { cat "$dir.initdb.log" >&2; exit 1; }
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" start >&2
    fi
    as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U agentd -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname='agentd_test'" | grep -q 1 ||
      as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U agentd agentd_test
    echo "export AGENTD_TEST_POSTGRES_URL=postgres://agentd@127.0.0.1:$port/agentd_test"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast stop >&2 || true
    ;;
  *)
    echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
