#!/usr/bin/env bash
# The fault suite (docs/fault-suite.md): starts a PostgreSQL cluster of its own (so it can crash
# and restart it), a Temporal dev server of its own, builds the project, then runs
# test/faults/run.ts, which starts NATS and the supervised API and workers and migrates generated
# books while killing them at random moments. Arguments go to the runner (--help lists them);
# --short is the bounded form the test command runs.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

ARGS=()
for arg in "$@"; do
  case "$arg" in
    # The form inside `npm test`: every scenario (deploy included), smaller books, a 10 s NATS outage.
    --short) ARGS+=(--accounts 100 --worker-kills 3 --api-kills 1 --nats-outage 10 --pg-restarts 1) ;;
    -h | --help) (cd "$ROOT" && npx tsx test/faults/run.ts --help); exit 0 ;;
    *) ARGS+=("$arg") ;;
  esac
done

trap cleanup EXIT INT TERM
DATA="$ROOT/data/faults"
mkdir -p "$DATA"
ensure_node_modules
if [[ "${FAULTS_SKIP_BUILD:-0}" != 1 ]]; then
  say "building (TypeScript → dist/, workflow bundle)"
  (cd "$ROOT" && npm run --silent build)
fi

# A fresh cluster each run: the suite restarts it with `pg_ctl restart -m immediate` (a crash).
rm -rf "$DATA/postgres"
start_local_postgres "$DATA/postgres"
export FAULTS_DATABASE_BASE_URL="$DATABASE_BASE_URL"
PG_USER=postgres; id "$PG_USER" >/dev/null 2>&1 || PG_USER=dataimport
if [[ "$(id -u)" == 0 ]]; then
  export FAULTS_PG_CTL="runuser -u $PG_USER -- $(pg_bin_dir)/pg_ctl -D $DATA/postgres -l $DATA/postgres/server.log"
else
  export FAULTS_PG_CTL="$(pg_bin_dir)/pg_ctl -D $DATA/postgres -l $DATA/postgres/server.log"
fi

NATS_SERVER_BIN="$(nats_server_bin)"
export NATS_SERVER_BIN

TEMPORAL_PORT="$(free_port)"
start_temporal_dev "$TEMPORAL_PORT" 0 "" "$DATA/temporal.log"
export TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
say "Temporal dev server for the fault suite on $TEMPORAL_ADDRESS"

cd "$ROOT"
T0=$(date +%s)
set +e
npx tsx test/faults/run.ts "${ARGS[@]}"
code=$?
set -e
say "fault suite finished in $(($(date +%s) - T0)) s (exit $code)"
exit "$code"
