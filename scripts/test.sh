#!/usr/bin/env bash
# Runs the whole test suite against real PostgreSQL, NATS JetStream and a dedicated Temporal dev
# server, starting whatever is missing and stopping what it started: type check and lint, jest
# (unit and integration tests), then the fault suite's short form (scripts/faults.sh), the
# several-hosts harness's short form (scripts/hosts.sh --short: root only) and the schemathesis run
# against the real API (scripts/fuzz.sh). Extra arguments go to jest (e.g. scripts/test.sh
# test/unit/account) and leave the fault suite, the hosts and schemathesis out (counted as skipped).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/chromium.sh"

FORCE_LOCAL="${DATA_IMPORT_LOCAL_SERVICES:-0}"
if [[ "${1:-}" == "--local-services" ]]; then FORCE_LOCAL=1; shift; fi

trap cleanup EXIT INT TERM
T0=$(date +%s)

ensure_node_modules
ensure_chromium
start_test_services "$FORCE_LOCAL"

cd "$ROOT"
# The closing lines (scripts/lib/testcount.js): one `count:` line per part with its planned,
# passed, failed and skipped units, then `N passed, N failed[, N skipped]`, the line a CI system
# reads, always last. Every part's plan is written to $COUNT_DIR/plan before it runs or is left out,
# so a part left out shows as skipped and a runner that crashed counts its planned units as failed:
# the type check and lint (one unit each), jest (its files from `jest --listTests`; once it reports,
# its tests), the fault suite's and the hosts harness's scenarios (their runners' `--plan` of the
# short form) and the fuzz's operations (`scripts/fuzz.sh --plan`: the operations of the OpenAPI
# document). docs/quick-start.md ("The count line").
COUNT_DIR="$ROOT/data/test/count-$$"
rm -rf "$COUNT_DIR"; mkdir -p "$COUNT_DIR"
# `plan_of PART CMD...`: the N of the `PART: planned N` line CMD prints (1 when it prints none).
plan_of() {
  local part="$1" n; shift
  n="$("$@" 2>/dev/null | sed -n "s/^$part: planned \([0-9][0-9]*\).*/\1/p" | tail -1)"
  echo "${n:-1}"
}
# `runner PART WHY-LEFT-OUT PLAN-CMD -- RUN-CMD...`: plans PART, then runs it unless WHY-LEFT-OUT is set.
runner() {
  local part="$1" why="$2" plan_cmd="$3"; shift 4
  local planned; planned="$(plan_of "$part" bash -c "$plan_cmd")"
  if [[ -n "$why" ]]; then
    say "$part: left out ($why): $planned planned units skipped"
    echo "$part $planned skip $why" >>"$COUNT_DIR/plan"
    return 0
  fi
  echo "$part $planned run" >>"$COUNT_DIR/plan"
  local t0; t0=$(date +%s)
  "$@" 2>&1 | tee "$COUNT_DIR/$part.log"
  local rc="${PIPESTATUS[0]}"
  echo "$part exit $rc" >>"$COUNT_DIR/plan"
  echo "$part time $(($(date +%s) - t0))" >>"$COUNT_DIR/plan"
  return "$rc"
}
code=0
set +e
echo "checks 2 run" >>"$COUNT_DIR/plan"
say "type check and lint"
t_part=$(date +%s)
npx tsc -p tsconfig.json --noEmit; echo "typecheck $?" >>"$COUNT_DIR/checks"
npm run lint; echo "lint $?" >>"$COUNT_DIR/checks"
echo "checks time $(($(date +%s) - t_part))" >>"$COUNT_DIR/plan"
say "jest"
t_part=$(date +%s)
echo "jest $(npx jest --listTests "$@" 2>/dev/null | grep -c .) run" >>"$COUNT_DIR/plan"
# Two jest workers on this 2-core machine (jest's default is cores - 1 = 1): the integration tests
# mostly wait on PostgreSQL, Temporal and the processes they start, and each file has its own
# database, stream prefix and task queue, so two files at once share nothing. Measured on a loaded
# machine: 992 s with one worker (CI, quiet), 766 s with two (docs/quick-start.md). JEST_WORKERS
# overrides it (1 runs the files one after another).
npx jest --ci --maxWorkers="${JEST_WORKERS:-2}" --json --outputFile="$COUNT_DIR/jest.json" "$@"
jest_code=$?
echo "jest time $(($(date +%s) - t_part))" >>"$COUNT_DIR/plan"
[[ "$jest_code" == 0 ]] || code=1
grep -qv ' 0$' "$COUNT_DIR/checks" && code=1
# The fault suite's short form (docs/fault-suite.md), the hosts harness's short form and the
# schemathesis run (docs/api-fuzzing.md) run with the whole suite; with a jest selection, after a
# failed check or jest, with DATA_IMPORT_FAULTS=0 / DATA_IMPORT_HOSTS=0 / DATA_IMPORT_FUZZ=0, or (the
# hosts) without root, each is left out and its planned units count as skipped.
why=""
[[ $# -eq 0 ]] || why="jest was given a selection"
[[ -n "$why" || "$code" == 0 ]] || why="a check or jest failed"
# dist/ as built by the fault suite (it builds first): the hosts harness need not build it again.
built=0
# A part's own switch is named first, then why the whole tail is left out, then (hosts) root.
faults_why="$why"; [[ "${DATA_IMPORT_FAULTS:-1}" != 0 ]] || faults_why="DATA_IMPORT_FAULTS=0"
[[ -n "$faults_why" ]] || say "fault suite, short form (scripts/faults.sh --short)"
runner faults "$faults_why" "bash '$ROOT/scripts/faults.sh' --short --plan" -- bash "$ROOT/scripts/faults.sh" --short
rc=$?
if [[ -z "$faults_why" ]]; then if [[ "$rc" == 0 ]]; then built=1; else code=1; fi; fi
# The hosts need root (network namespaces).
hosts_why="$why"; [[ "${DATA_IMPORT_HOSTS:-1}" != 0 ]] || hosts_why="DATA_IMPORT_HOSTS=0"
[[ -n "$hosts_why" || "$(id -u)" == 0 ]] || hosts_why="no root (network namespaces; npm run test:hosts as root)"
[[ -n "$hosts_why" ]] || say "several hosts, short form (scripts/hosts.sh --short)"
HOSTS_SKIP_BUILD="${HOSTS_SKIP_BUILD:-$built}" runner hosts "$hosts_why" "bash '$ROOT/scripts/hosts.sh' --short --plan" -- bash "$ROOT/scripts/hosts.sh" --short || code=1
fuzz_why="$why"; [[ "${DATA_IMPORT_FUZZ:-1}" != 0 ]] || fuzz_why="DATA_IMPORT_FUZZ=0"
[[ -n "$fuzz_why" ]] || say "schemathesis against the running API (scripts/fuzz.sh)"
# A fixed seed inside the test command, so a CI run is reproducible (this one once found a 500,
# now a regression check); `npm run test:fuzz` alone draws a new seed each time to explore.
# 50 generated requests per operation (npm run test:fuzz alone: 100, a new seed each time): with a
# fixed seed the run replays the same cases every time, a regression check, so the half kept saves
# ~1.5 minutes of every run; new finds come from new seeds. The coverage phase's boundary cases and
# every operation all stay.
FUZZ_SEED="${FUZZ_SEED:-924069319}" FUZZ_MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-50}" runner fuzz "$fuzz_why" "bash '$ROOT/scripts/fuzz.sh' --plan" -- bash "$ROOT/scripts/fuzz.sh" || code=1
set -e
say "tests finished in $(($(date +%s) - T0)) s"
# Stop what this command started before the count, so the count is the run's last line.
trap - EXIT INT TERM
set +e
(cleanup)
lines="$(node "$ROOT/scripts/lib/testcount.js" "$COUNT_DIR" "$code")"
count_code=$?
rm -rf "$COUNT_DIR"
echo "$lines"
exit "$count_code"
