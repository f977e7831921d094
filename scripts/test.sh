#!/usr/bin/env bash
# Runs the whole test suite (type check, unit and integration tests) against real PostgreSQL,
# NATS JetStream and a dedicated Temporal dev server, starting whatever is missing and stopping
# what it started. Extra arguments go to jest (e.g. scripts/test.sh test/unit/account).
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
say "tests finished in $(($(date +%s) - T0)) s"
exit "$code"
