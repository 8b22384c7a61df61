#!/usr/bin/env bash
# A real Temporal cluster on loopback, without Docker: the Temporal server itself (not the CLI's dev
# server) on PostgreSQL, persistence and SQL visibility, with agentd's search attributes registered.
# It is the server docker-compose.yml runs, started the same way: the server's built-in config
# template read with deploy/temporal/server.env and deploy/temporal/dynamicconfig.yaml, schemas set up
# by deploy/temporal/setup-postgres.sh with Temporal's own SQL tool, the namespace and attributes
# registered by deploy/temporal/create-namespace.sh. Only the addresses differ: PostgreSQL is
# scripts/test-postgres.sh's, and the ports start at $AGENTD_CLUSTER_PORT (7333), clear of a dev
# server on 7233.
#
# The server and its SQL tool are built once with `go install` from the Go module proxy at the
# pinned version and cached in ~/.cache/agentd/temporal-server/<version> (about 3 minutes on 2 cores).
#
#   usage: eval "$(scripts/temporal-cluster.sh start)"   prints AGENTD_TEST_CLUSTER_ADDRESS, _STORE and _METRICS (the server's Prometheus endpoint)
#          scripts/temporal-cluster.sh stop | restart | reset | build | status
#          scripts/temporal-cluster.sh pids     the server's pid and its PostgreSQL's (for /proc readings)
set -euo pipefail
cd "$(dirname "$0")/.."

version=${AGENTD_TEMPORAL_SERVER_VERSION:-1.32.2}
# v1.32.2's go.mod asks for this Go; GOTOOLCHAIN fetches it from the module proxy when the local Go is older.
toolchain=go1.26.10
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentd/temporal-server/$version
port=${AGENTD_CLUSTER_PORT:-7333}
dir=${AGENTD_CLUSTER_DIR:-${TMPDIR:-/tmp}/agentd-temporal-cluster-$port}
deploy=$PWD/deploy/temporal
# Temporal's two databases and agentd's transcript store, on scripts/test-postgres.sh's PostgreSQL.
history_db=agentd_cluster visibility_db=agentd_cluster_visibility store_db=agentd_cluster_store

say() { echo "temporal-cluster: $*" >&2; }

build() {
  [ -x "$cache/bin/temporal-server" ] && [ -x "$cache/bin/temporal-sql-tool" ] && [ -d "$cache/schema" ] && return 0
  command -v go >/dev/null || { say "go not found: the server is built with go install"; exit 1; }
  say "building the Temporal server $version and its SQL tool with go install (cached in $cache)"
  local gobin
  gobin=$(mktemp -d)
  GOTOOLCHAIN=$toolchain GOBIN=$gobin go install "go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version" >&2
  mkdir -p "$cache/bin"
  mv "$gobin/server" "$cache/bin/temporal-server"
  mv "$gobin/sql" "$cache/bin/temporal-sql-tool"
  rmdir "$gobin"
  # The schema files ship in the module, not the binaries; kept beside them so the module cache may go.
  cp -r "$(GOTOOLCHAIN=$toolchain go env GOMODCACHE)/go.temporal.io/server@v$version/schema" "$cache/schema"
  chmod -R u+w "$cache/schema"
}

temporal_cli() {
  if [ -n "${TEMPORAL_CLI:-}" ]; then echo "$TEMPORAL_CLI"; return; fi
  command -v temporal 2>/dev/null && return
  local cached=${XDG_CACHE_HOME:-$HOME/.cache}/agentd/bin/temporal
  [ -x "$cached" ] && { echo "$cached"; return; }
  say "no Temporal CLI: put one on PATH, set TEMPORAL_CLI, or run npm run setup"
  exit 1
}

# PostgreSQL from scripts/test-postgres.sh: host, port and user out of the URL it prints.
postgres() {
  local url
  url=$(scripts/test-postgres.sh start | sed -n 's/^export AGENTD_TEST_POSTGRES_URL=//p')
  pg_user=$(echo "$url" | sed -E 's#^postgres://([^@:]+).*#\1#')
  pg_host=$(echo "$url" | sed -E 's#^postgres://[^@]*@([^:/]+).*#\1#')
  pg_port=$(echo "$url" | sed -E 's#^postgres://[^@]*@[^:]+:([0-9]+).*#\1#')
}

# The server's environment: the shared settings, then where this one's database and ports are.
server_env() {
  set -a
  # shellcheck disable=SC1091
  . "$deploy/server.env"
  set +a
  export POSTGRES_SEEDS=$pg_host DB_PORT=$pg_port POSTGRES_USER=$pg_user POSTGRES_PWD=
  export DBNAME=$history_db VISIBILITY_DBNAME=$visibility_db
  export BIND_ON_IP=127.0.0.1 TEMPORAL_BROADCAST_ADDRESS=127.0.0.1
  export DYNAMIC_CONFIG_FILE_PATH=$deploy/dynamicconfig.yaml
  export FRONTEND_GRPC_PORT=$port FRONTEND_HTTP_PORT=$((port + 10)) FRONTEND_MEMBERSHIP_PORT=$((port + 100))
  export HISTORY_GRPC_PORT=$((port + 1)) HISTORY_MEMBERSHIP_PORT=$((port + 101))
  export MATCHING_GRPC_PORT=$((port + 2)) MATCHING_MEMBERSHIP_PORT=$((port + 102))
  export INTERNAL_FRONTEND_GRPC_PORT=$((port + 3)) INTERNAL_FRONTEND_MEMBERSHIP_PORT=$((port + 103)) INTERNAL_FRONTEND_HTTP_PORT=$((port + 13))
  export WORKER_GRPC_PORT=$((port + 6)) WORKER_MEMBERSHIP_PORT=$((port + 106))
  export PROMETHEUS_ENDPOINT=127.0.0.1:$((port + 20))
}

healthy() {
  "$cli" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1
}

running_pid() {
  [ -f "$dir/server.pid" ] && kill -0 "$(cat "$dir/server.pid")" 2>/dev/null && cat "$dir/server.pid"
}

start() {
  build
  cli=$(temporal_cli)
  postgres
  server_env
  mkdir -p "$dir"
  if ! running_pid >/dev/null; then
    PATH=$cache/bin:$PATH TEMPORAL_SCHEMA_DIR=$cache/schema/postgresql/v12 AGENTD_DATABASE=$store_db \
      sh "$deploy/setup-postgres.sh" >"$dir/setup.log" 2>&1 || { cat "$dir/setup.log" >&2; exit 1; }
    say "starting the server on 127.0.0.1:$port (log $dir/server.log)"
    setsid "$cache/bin/temporal-server" --allow-no-auth start >>"$dir/server.log" 2>&1 </dev/null &
    echo $! >"$dir/server.pid"
  fi
  local waited=0
  until healthy; do
    running_pid >/dev/null || { tail -20 "$dir/server.log" >&2; say "the server exited"; exit 1; }
    [ $waited -ge 120 ] && { tail -20 "$dir/server.log" >&2; say "not healthy after 120 s"; exit 1; }
    sleep 1
    waited=$((waited + 1))
  done
  # A namespace just created takes a moment to reach every service's cache: tried again, as compose's restart policy does.
  local tries=0
  until PATH=$(dirname "$cli"):$PATH TEMPORAL_ADDRESS=127.0.0.1:$port TEMPORAL_NAMESPACE=default NAMESPACE_RETENTION=7d \
    sh "$deploy/create-namespace.sh" >"$dir/namespace.log" 2>&1; do
    tries=$((tries + 1))
    [ $tries -ge 30 ] && { cat "$dir/namespace.log" >&2; exit 1; }
    sleep 1
  done
  say "up: Temporal $version on 127.0.0.1:$port, PostgreSQL $pg_host:$pg_port (metrics on 127.0.0.1:$((port + 20)))"
  echo "export AGENTD_TEST_CLUSTER_ADDRESS=127.0.0.1:$port"
  echo "export AGENTD_TEST_CLUSTER_STORE=postgres://$pg_user@$pg_host:$pg_port/$store_db"
  echo "export AGENTD_TEST_CLUSTER_METRICS=127.0.0.1:$((port + 20))"
}

stop() {
  local pid
  pid=$(running_pid) || { say "not running"; return 0; }
  kill "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/server.pid"
  say "stopped"
}

# Closed workflows stay for the namespace's 7-day retention, and a cluster that carries thousands of
# them costs more per step: the scale benchmark measures one on empty databases, as it measures a
# fresh dev server. The next start sets them up again.
reset() {
  stop
  postgres
  local db
  for db in "$history_db" "$visibility_db" "$store_db"; do
    psql "postgres://$pg_user@$pg_host:$pg_port/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null
  done
  say "databases dropped: $history_db, $visibility_db, $store_db"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  reset) reset ;;
  build) build; echo "$cache/bin/temporal-server" ;;
  status) if pid=$(running_pid); then say "running (pid $pid) on 127.0.0.1:$port"; else say "not running"; exit 1; fi ;;
  pids)
    pid=$(running_pid) || { say "not running"; exit 1; }
    pg_dir=${AGENTD_TEST_POSTGRES_DIR:-${TMPDIR:-/tmp}/agentd-test-postgres-${AGENTD_TEST_POSTGRES_PORT:-54329}}
    echo "server $pid"
    echo "postgres $(head -1 "$pg_dir/postmaster.pid")"
    ;;
  *) echo "usage: $0 start|stop|restart|reset|build|status|pids" >&2; exit 2 ;;
esac
