#!/usr/bin/env bash
# The fault suite (docs/fault-suite.md): starts a PostgreSQL cluster of its own (so it can crash
# and restart it), a Temporal dev server of its own, builds the project, then runs
# test/faults/run.ts, which starts NATS and the supervised API and workers and migrates generated
# books while killing them at random moments (the dev server too: it runs on a SQLite file).
# Arguments go to the runner (--help lists them); --short is the bounded form the test command runs,
# --plan prints the scenarios it would run and stops.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

ARGS=()
PLAN=0
for arg in "$@"; do
  case "$arg" in
    # The form inside `npm test`: every scenario (deploy and temporal included), smaller books, a 10 s NATS outage.
    --short) ARGS+=(--accounts 100 --worker-kills 3 --api-kills 1 --nats-outage 10 --pg-restarts 1 --temporal-kills 1 --staged-kills 2) ;;
    -h | --help) (cd "$ROOT" && npx tsx test/faults/run.ts --help); exit 0 ;;
    --plan) PLAN=1 ;;
    *) ARGS+=("$arg") ;;
  esac
done
# --plan: the scenarios these arguments would run (`faults: planned N (...)`), without running
# anything; scripts/test.sh counts them, as skipped when it leaves the suite out.
if [[ "$PLAN" == 1 ]]; then cd "$ROOT" && exec npx tsx test/faults/run.ts "${ARGS[@]}" --plan; fi

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

# The dev server on a fresh SQLite file with the run command's settings (TEMPORAL_SQLITE_PRAGMAS,
# docs/configuration.md): the temporal scenario SIGKILLs it and starts it again on the same file
# (FAULTS_TEMPORAL_ARGV), and the pid of the restarted one lands in FAULTS_TEMPORAL_PIDFILE.
# FAULTS_TEMPORAL_DB= (empty) runs it in memory instead, for comparison (the temporal scenario then refuses).
TEMPORAL_PORT="$(free_port)"
TEMPORAL_DB="${FAULTS_TEMPORAL_DB-$DATA/temporal.db}"
rm -f "$DATA/temporal.db" "$DATA/temporal.db-wal" "$DATA/temporal.db-shm" "$DATA/temporal.db-journal" "$DATA/temporal.pid"
[[ -n "$TEMPORAL_DB" ]] && rm -f "$TEMPORAL_DB" "$TEMPORAL_DB-wal" "$TEMPORAL_DB-shm" "$TEMPORAL_DB-journal"
start_temporal_dev "$TEMPORAL_PORT" 0 "$TEMPORAL_DB" "$DATA/temporal.log"
export TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
export FAULTS_TEMPORAL_PID="${STARTED_PIDS[-1]}" FAULTS_TEMPORAL_LOG="$DATA/temporal.log" FAULTS_TEMPORAL_PIDFILE="$DATA/temporal.pid"
disown "$FAULTS_TEMPORAL_PID" # its SIGKILL is the temporal scenario's, not news for this shell
FAULTS_TEMPORAL_ARGV="$(printf '%s\n' "$(tool_path temporal)" "${TEMPORAL_DEV_ARGV[@]}")"
export FAULTS_TEMPORAL_ARGV
STOP_ACTIONS+=("stop_pid_file '$DATA/temporal.pid'")
say "Temporal dev server for the fault suite on $TEMPORAL_ADDRESS (state ${TEMPORAL_DB:+in }${TEMPORAL_DB:-in memory})"

cd "$ROOT"
T0=$(date +%s)
set +e
npx tsx test/faults/run.ts "${ARGS[@]}"
code=$?
set -e
say "fault suite finished in $(($(date +%s) - T0)) s (exit $code)"
exit "$code"
