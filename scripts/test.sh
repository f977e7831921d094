#!/usr/bin/env bash
# Runs the whole test suite (type check, unit and integration tests, then the schemathesis run)
# against real PostgreSQL, NATS JetStream and a dedicated Temporal dev server, starting whatever is
# missing and stopping what it started. Extra arguments go to jest (e.g. scripts/test.sh
# test/unit/account) and leave the schemathesis run out.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

FORCE_LOCAL="${DATA_IMPORT_LOCAL_SERVICES:-0}"
if [[ "${1:-}" == "--local-services" ]]; then FORCE_LOCAL=1; shift; fi

trap cleanup EXIT INT TERM
T0=$(date +%s)

ensure_node_modules
start_test_services "$FORCE_LOCAL"

cd "$ROOT"
say "type check and lint"
npx tsc -p tsconfig.json --noEmit
npx eslint workflows
say "jest"
set +e
npx jest --ci "$@"
code=$?
set -e
# The schemathesis run against the real API (docs/api-fuzzing.md) runs with the whole suite, not
# when jest was given a selection of tests; DATA_IMPORT_FUZZ=0 leaves it out.
if [[ $# -eq 0 && "$code" == 0 && "${DATA_IMPORT_FUZZ:-1}" != 0 ]]; then
  say "schemathesis against the running API (scripts/fuzz.sh)"
  set +e
  bash "$ROOT/scripts/fuzz.sh"
  code=$?
  set -e
fi
say "tests finished in $(($(date +%s) - T0)) s"
exit "$code"
