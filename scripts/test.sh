#!/usr/bin/env bash
# Runs the whole test suite (type check, unit and integration tests) against real PostgreSQL,
# NATS JetStream and a dedicated Temporal dev server, starting whatever is missing and stopping
# what it started. Extra arguments go to jest (e.g. scripts/test.sh test/unit/account).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/chromium.sh"

FORCE_LOCAL="${DATA_IMPORT_LOCAL_SERVICES:-0}"
if [[ "${1:-}" == "--local-services" ]]; then FORCE_LOCAL=1; shift; fi

trap cleanup EXIT INT TERM
T0=$(date +%s)
DATA="$ROOT/data/test"
mkdir -p "$DATA"

ensure_node_modules
ensure_chromium

ensure_postgres "$FORCE_LOCAL" "$DATA"
if [[ -n "$DATABASE_BASE_URL" ]]; then
  export TEST_DATABASE_URL="$DATABASE_BASE_URL/postgres"
else
  export TEST_DATABASE_URL="$(echo "$DATABASE_URL" | sed -E 's#(//[^/]+)/[^?]*#\1/postgres#')"
fi

ensure_nats "$FORCE_LOCAL" "$DATA"
export TEST_NATS_URL="$NATS_URL"

# A Temporal dev server of the test run's own (in memory, headless, free port): tests never
# touch an operator's server.
TEMPORAL_PORT="$(free_port)"
start_temporal_dev "$TEMPORAL_PORT" 0 "" "$DATA/temporal.log"
export TEST_TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
say "Temporal dev server for the tests on $TEST_TEMPORAL_ADDRESS"
export TEMPORAL_TEST_SERVER_PATH="$(tool_path temporal-test-server)"

cd "$ROOT"
say "type check and lint"
npx tsc -p tsconfig.json --noEmit
npx eslint workflows
say "jest"
set +e
npx jest --ci "$@"
code=$?
set -e
# The fault suite's short form (README "Fault suite") runs with the whole suite, not when jest was
# given a selection of tests.
if [[ $# -eq 0 && "$code" == 0 ]]; then
  say "fault suite (short form)"
  set +e
  bash "$ROOT/scripts/faults.sh" --short
  code=$?
  set -e
fi
say "tests finished in $(($(date +%s) - T0)) s"
exit "$code"
