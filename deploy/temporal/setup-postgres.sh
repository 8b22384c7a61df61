#!/bin/sh
# Run once per `docker-compose up` by the temporal-setup service (temporalio/admin-tools image), and by
# scripts/temporal-cluster.sh on loopback: creates Temporal's two databases and agentd's transcript
# database, then applies schema updates. Safe to run again on an existing volume: databases that
# exist are kept, schemas only move forward.
set -eu

SQL="temporal-sql-tool --plugin postgres12 --ep ${POSTGRES_SEEDS} -p ${DB_PORT} -u ${POSTGRES_USER} --pw=${POSTGRES_PWD}"
SCHEMA=${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}

# Exit status 0: created now (needs its base schema); 1: it was already there.
create_database() {
  if output=$($SQL --db "$1" create 2>&1); then
    echo "created database $1"
    return 0
  fi
  case "$output" in
    *"already exists"*) echo "database $1 exists"; return 1 ;;
    *) echo "$output" >&2; exit 1 ;;
  esac
}

for db in "${DBNAME:-temporal}" "${VISIBILITY_DBNAME:-temporal_visibility}"; do
  dir=temporal
  [ "$db" = "${VISIBILITY_DBNAME:-temporal_visibility}" ] && dir=visibility
  if create_database "$db"; then
    $SQL --db "$db" setup-schema -v 0.0
  fi
  $SQL --db "$db" update-schema -d "$SCHEMA/$dir/versioned"
done

# agentd's transcript store creates its own tables on start; it only needs the database.
create_database "${AGENTD_DATABASE}" || true
echo "schemas ready"
