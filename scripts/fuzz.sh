#!/usr/bin/env bash
# `npm run test:fuzz`: the bounded schemathesis run against the real API (test/fuzz/run.ts,
# docs/api-fuzzing.md). scripts/test.sh calls it with its servers already exported; run alone, it
# detects or starts PostgreSQL, NATS and a Temporal dev server the same way the test command does.
# Arguments go to `schemathesis run` (e.g. `FUZZ_PARTIAL=1 npm run test:fuzz -- --include-operation-id
# createAccount`: without FUZZ_PARTIAL=1 every operation of the document the run leaves out fails it).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# --plan: the operations of the document the run fuzzes (`fuzz: planned N (...)`), without servers:
# scripts/test.sh counts them, as skipped when it leaves the fuzz out.
if [[ "${1:-}" == "--plan" ]]; then cd "$ROOT" && exec npx tsx test/fuzz/run.ts --plan; fi
trap cleanup EXIT INT TERM
ensure_node_modules
if [[ -z "${TEST_TEMPORAL_ADDRESS:-}" ]]; then start_test_services "${DATA_IMPORT_LOCAL_SERVICES:-0}"; fi
ensure_venv_tools
export SCHEMATHESIS="$VENV/bin/schemathesis"
say "schemathesis $("$SCHEMATHESIS" --version | sed 's/.*version //') from $VENV"
cd "$ROOT"
set +e
npx tsx test/fuzz/run.ts -- "$@"
code=$?
set -e
exit "$code"
