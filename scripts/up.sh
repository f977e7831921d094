#!/usr/bin/env bash
# Brings up everything the service needs and runs it: PostgreSQL, NATS JetStream, Temporal
# (dev server + Web UI), migrations and demo data, then the API and the worker under a supervisor
# that restarts them when they exit. Idempotent; Ctrl-C stops what this command started.
# Each build it runs is kept in data/builds/<build id>/; an older build that still has imports
# pinned to it runs beside the new one until it drains (docs/deploys.md, "Under npm run up").
# See docs/quick-start.md and docs/operations.md ("Supervision and ports").
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  cat <<'USAGE'
Usage: scripts/up.sh [--local-services] [--workers N] [--api-replicas M] [--role all|api|worker]
                     [--old-workers N] [--run-build ID]... [--no-promote] [--help]

Brings up PostgreSQL, NATS (JetStream) and the Temporal dev server when they are not already
running, migrates the database, seeds the demo import supplier DEMO_ENERGY and the organisation
DEMO with an API key, then runs the API and the worker until Ctrl-C.

The API and worker processes run under a supervisor: one that exits (crash, out of memory,
SIGKILL) is started again after 1 s, 2 s, 4 s ... up to 30 s (back to 1 s once it has stayed up
30 s), logged with its exit code or signal and restart count. A service process that dies never
stops Temporal or the databases. Ctrl-C / SIGTERM stops everything this command started: the
services get SIGTERM and 65 s to finish their work, then SIGKILL (a second Ctrl-C: at once).
Pid files: data/run/<name>.pid (api-1, worker-1, ..., supervisor); logs: data/logs/<name>.log.

  --local-services  Start project-local PostgreSQL and NATS on free ports (data under
                    data/local/) even when the machine's own servers answer: for isolated runs
                    and to see what a fresh machine without those servers gets.
  --workers N       Run N worker processes (default 1; one per core is the usual choice).
                    Worker i serves its metrics on WORKER_METRICS_PORT + 2(i-1) (default 9464)
                    and the SDK's on the port after it; a taken port falls back to a free one.
  --api-replicas M  Run M API processes (default 1); replica i listens on PORT + i - 1.
  --role ROLE       all (default): everything above on this machine. api or worker: one host of
                    several (docs/scaling.md, "Running each role on its own host"): only that
                    role's processes, supervised, and no server started — DATABASE_URL, NATS_URL,
                    TEMPORAL_ADDRESS (and SMTP_URL for a worker) must name the other hosts; the
                    database is migrated (no demo data).
  --old-workers N   Worker processes per older build that still has open imports (default 1;
                    0: start none, only warn). See "Deploys" below.
  --run-build ID    Also run the workers of the kept build ID (data/builds/ID/), whatever is
                    open on it: to roll back to it. Repeatable. Never retired by itself.
  --no-promote      Never make this build current by itself; only warn (see below).
  --help            Show this help.

Deploys (docs/deploys.md, "Under npm run up"). Imports are pinned to the build they started on,
and the Temporal dev server keeps its state in data/temporal/temporal.db across runs. A code
change then restart of this command is a rollout:
  - every build it runs is kept in data/builds/<build id>/ (a copy of dist/);
  - an older build that still has open imports pinned to it runs again, from its kept copy,
    beside the new build (workers worker-<build id>-1...), until it has drained: its workers
    then stop by themselves;
  - routing is left to the operator while the current build has workers: new imports keep
    starting on the old build until `bin/data-import deploy set-current <new build>` (the run
    prints the exact steps: replay, set-current, drain-status);
  - when the current build has no worker here or anywhere, every new import would wait for
    ever: the new build is made current instead, loudly (--no-promote: only the warning).
What it decided is printed under "Builds" once the API is ready (and in data/logs/supervisor.log).

Environment: DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS, SMTP_URL (use those servers, start none;
without SMTP_URL a local mail sink with a web inbox starts on MAIL_SINK_SMTP_PORT/MAIL_SINK_WEB_PORT,
default 1025/1080), PORT,
HOST and every variable of docs/configuration.md.
USAGE
}

FORCE_LOCAL="${DATA_IMPORT_LOCAL_SERVICES:-0}"
ROLE=all
WORKERS=1
API_REPLICAS=1
OLD_WORKERS=1
ROLLOUT_ARGS=()
while (($#)); do
  case "$1" in
    --local-services) FORCE_LOCAL=1 ;;
    --workers) WORKERS="${2:-}"; (($# > 1)) && shift ;;
    --workers=*) WORKERS="${1#*=}" ;;
    --api-replicas) API_REPLICAS="${2:-}"; (($# > 1)) && shift ;;
    --role) ROLE="${2:-}"; (($# > 1)) && shift ;;
    --api-replicas=*) API_REPLICAS="${1#*=}" ;;
    --old-workers) OLD_WORKERS="${2:-}"; (($# > 1)) && shift ;;
    --old-workers=*) OLD_WORKERS="${1#*=}" ;;
    --run-build) ROLLOUT_ARGS+=(--run-build "${2:-}"); (($# > 1)) && shift ;;
    --run-build=*) ROLLOUT_ARGS+=(--run-build "${1#*=}") ;;
    --no-promote) ROLLOUT_ARGS+=(--no-promote) ;;
    -h | --help) usage; exit 0 ;;
    *) usage; die "unknown option: $1" ;;
  esac
  shift
done
[[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] || die "--workers expects a positive integer, got '$WORKERS'"
[[ "$API_REPLICAS" =~ ^[1-9][0-9]*$ ]] || die "--api-replicas expects a positive integer, got '$API_REPLICAS'"
[[ "$OLD_WORKERS" =~ ^[0-9]+$ ]] || die "--old-workers expects an integer (0 or more), got '$OLD_WORKERS'"
[[ "$ROLE" =~ ^(all|api|worker)$ ]] || die "--role expects all, api or worker, got '$ROLE'"
if [[ "$ROLE" != all ]]; then
  # One host of several: the servers are the other hosts', named in the environment.
  missing=()
  for v in DATABASE_URL NATS_URL TEMPORAL_ADDRESS; do [[ -n "${!v:-}" ]] || missing+=("$v"); done
  [[ "$ROLE" == worker && -z "${SMTP_URL:-}" ]] && missing+=(SMTP_URL)
  ((${#missing[@]} == 0)) || die "--role $ROLE starts no server: set ${missing[*]} to the other hosts' (docs/scaling.md, \"Running each role on its own host\")"
  [[ "$FORCE_LOCAL" == 1 ]] && die "--role $ROLE and --local-services do not go together: a role host uses the servers of the environment"
fi

# data/ holds the logs (customer data in them), the mails of the local sink, the Temporal
# database, the demo API key and the token signing key: this user's alone (scripts/lib/common.sh).
private_data "$ROOT/data"
# The key tokens are signed with: this install's own, or the deployment's for a role host.
ensure_signing_key "$ROLE" "$ROOT/data/auth-signing-key"

SUPERVISOR_PID=""
# The supervisor first (it gives the services their grace period and SIGKILLs what stays),
# then what cleanup stops: Temporal, project-local NATS and PostgreSQL.
stop_all() {
  local code=$?
  # A second Ctrl-C reaches the supervisor, which then SIGKILLs the services; this shell goes on
  # to stop the servers.
  trap '' INT TERM
  if [[ -n "$SUPERVISOR_PID" ]] && kill -0 "$SUPERVISOR_PID" 2>/dev/null; then
    kill -TERM "$SUPERVISOR_PID" 2>/dev/null || true
    wait "$SUPERVISOR_PID" 2>/dev/null || true
  fi
  (exit "$code")
  cleanup
}
trap stop_all EXIT
trap 'exit 130' INT TERM
T0=$(date +%s)
DATA="$ROOT/data"
[[ "$FORCE_LOCAL" == 1 ]] && DATA="$ROOT/data/local"
mkdir -p "$DATA"
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8000}"
# An API host with API_TLS_CERT serves HTTPS (docs/scaling.md); this script's own probes of it
# only ask whether it answers, so they do not check its certificate (-k).
API_URL="http://$HOST:$PORT"
CURL_TLS=()
[[ -n "${API_TLS_CERT:-}" ]] && { API_URL="https://$HOST:$PORT"; CURL_TLS=(-k); }

if [[ "$ROLE" != worker ]] && curl -fsS ${CURL_TLS[@]+"${CURL_TLS[@]}"} "$API_URL/healthz" >/dev/null 2>&1; then
  say "the API already answers on $API_URL: nothing to start (stop it first to restart)"
  trap - EXIT INT TERM
  exit 0
fi

ensure_node_modules

if [[ "$ROLE" == all ]]; then
  ensure_postgres "$FORCE_LOCAL" "$DATA"
  if [[ "$FORCE_LOCAL" == 1 || -z "${DATABASE_URL:-}" ]]; then
    export DATABASE_URL="$DATABASE_BASE_URL/data_import"
  fi
  export DATABASE_URL

  ensure_nats "$FORCE_LOCAL" "$DATA"
  export NATS_URL

  if [[ -n "${TEMPORAL_ADDRESS:-}" ]]; then
    say "Temporal: using TEMPORAL_ADDRESS ($TEMPORAL_ADDRESS)"
    TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-(the Web UI of your Temporal deployment)}"
  else
    export TEMPORAL_ADDRESS="127.0.0.1:7233"
    if port_open 127.0.0.1 7233; then
      say "Temporal: a server already answers on 127.0.0.1:7233"
    else
      mkdir -p "$ROOT/data/temporal"
      # The dev server's UI answers any Host: it listens on a private port, and the guard
      # (scripts/uiGuard.ts) on 8233 forwards only a loopback Host (DNS rebinding, docs/security.md).
      ui_port="$(free_port)"
      start_temporal_dev 7233 "$ui_port" "$ROOT/data/temporal/temporal.db" "$ROOT/data/temporal/server.log"
      "$ROOT/node_modules/.bin/tsx" "$ROOT/scripts/uiGuard.ts" 8233 "$ui_port" >"$ROOT/data/temporal/ui-guard.log" 2>&1 &
      STARTED_PIDS+=("$!")
      wait_for_port 127.0.0.1 8233 60 "Temporal UI guard"
      say "started the Temporal dev server on 127.0.0.1:7233 (Web UI http://127.0.0.1:8233, loopback Host only), state in data/temporal/temporal.db"
    fi
    TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://127.0.0.1:8233}"
  fi
  export TEMPORAL_UI_URL
  ensure_mail_sink "$DATA" "${MAIL_SINK_SMTP_PORT:-1025}" "${MAIL_SINK_WEB_PORT:-1080}"
  export SMTP_URL
  [[ -n "${SMTP_REQUIRE_TLS:-}" ]] && export SMTP_REQUIRE_TLS
  register_search_attributes "$TEMPORAL_ADDRESS" "${TEMPORAL_NAMESPACE:-default}"
else
  say "role $ROLE: PostgreSQL, NATS and Temporal of the environment (DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS); no server started here"
  export DATABASE_URL NATS_URL TEMPORAL_ADDRESS
  [[ -n "${SMTP_URL:-}" ]] && export SMTP_URL
  TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-(the Web UI of your Temporal deployment)}"
  export TEMPORAL_UI_URL
fi

say "building (TypeScript → dist/, workflow bundle)"
(cd "$ROOT" && npm run --silent build)
# Kept, so that after the next code change this build's workers can still run its open imports.
BUILD_ID="$(node "$ROOT/dist/scripts/release.js" keep --builds-dir "$ROOT/data/builds" | sed -n 's/^BUILD_ID=//p')"

if [[ "$ROLE" == all ]]; then
  say "migrating the database and seeding demo data"
  SETUP_OUT="$(cd "$ROOT" && node dist/scripts/setup.js --demo)"
else
  # Every host may run it: the migrations take a lock, the second finds them done.
  say "migrating the database (no demo data on a role host)"
  SETUP_OUT="$(cd "$ROOT" && node dist/scripts/setup.js)"
fi

mkdir -p "$DATA/logs" "$DATA/run"
# The supervisor restarts a service process that exits; WORKER_NODE_OPTIONS (node flags of the
# workers) and every other variable reach the services through its environment. --rollout: it
# runs older builds that still have open imports and checks which build is current (above).
rm -f "$DATA/run/rollout.txt"
ROLLOUT=(--rollout --builds-dir "$ROOT/data/builds" --old-workers "$OLD_WORKERS" ${ROLLOUT_ARGS[@]+"${ROLLOUT_ARGS[@]}"})
case "$ROLE" in
  api) SUPERVISE_ARGS=(--workers 0 --api-replicas "$API_REPLICAS") ;;
  worker) SUPERVISE_ARGS=(--workers "$WORKERS" --api-replicas 0 "${ROLLOUT[@]}") ;;
  *) SUPERVISE_ARGS=(--workers "$WORKERS" --api-replicas "$API_REPLICAS" "${ROLLOUT[@]}") ;;
esac
node "$ROOT/dist/scripts/supervise.js" "${SUPERVISE_ARGS[@]}" --run-dir "$DATA/run" --log-dir "$DATA/logs" &
SUPERVISOR_PID=$!
PROCESS_WORKERS="$WORKERS"
[[ "$ROLE" == api ]] && PROCESS_WORKERS="0 (role api: the worker hosts run them)"

# What the supervisor decided about the builds: written once this build's workers registered
# (bounded: 120 s, or until the supervisor is gone).
wait_for_rollout_note() {
  for _ in $(seq 1 600); do
    [[ -f "$DATA/run/rollout.txt" ]] && break
    kill -0 "$SUPERVISOR_PID" 2>/dev/null || break
    sleep 0.2
  done
}

# The supervisor runs until Ctrl-C / SIGTERM. A Ctrl-C reaches it too, and it then stops the
# services and exits 0 (possibly before this shell runs its trap): the EXIT trap stops the rest.
run_until_supervisor_exits() {
  if wait "$SUPERVISOR_PID"; then
    SUPERVISOR_PID=""
    exit 0
  fi
  SUPERVISOR_PID=""
  die "the supervisor exited; see $DATA/logs/supervisor.log"
}

if [[ "$ROLE" == worker ]]; then
  # A worker host: no API here to wait for.
  wait_for_rollout_note
  kill -0 "$SUPERVISOR_PID" 2>/dev/null || die "the supervisor exited; see $DATA/logs/supervisor.log"
  say "ready in $(($(date +%s) - T0)) s"
  cat <<INFO

  Role           worker: $WORKERS worker process(es), supervised (pid files in $DATA/run, logs in $DATA/logs)
  Servers        DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS, SMTP_URL of the environment
  Build          $BUILD_ID (kept in data/builds/$BUILD_ID/)
$(sed 's/^/  /' "$DATA/run/rollout.txt" 2>/dev/null)

  Press Ctrl-C to stop.
INFO
  run_until_supervisor_exits
fi

for _ in $(seq 1 300); do
  curl -fsS ${CURL_TLS[@]+"${CURL_TLS[@]}"} "$API_URL/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS ${CURL_TLS[@]+"${CURL_TLS[@]}"} "$API_URL/readyz" >/dev/null 2>&1 || { tail -n 20 "$DATA/logs/api-1.log" "$DATA/logs/worker-1.log" >&2; die "the API did not become ready"; }

API_KEY="$(printf '%s\n' "$SETUP_OUT" | sed -n 's/^API_KEY=//p')"
# An API host runs no worker: nothing to wait for.
[[ "$ROLE" == api ]] || wait_for_rollout_note
BUILDS_INFO="$(cat "$DATA/run/rollout.txt" 2>/dev/null || echo '(not checked here: bin/data-import deploy status)')"
say "ready in $(($(date +%s) - T0)) s"
cat <<INFO

  API            $API_URL          (readiness: /readyz, metrics: /metrics, OpenAPI: /openapi.json)
  Temporal UI    $TEMPORAL_UI_URL
  Operations     http://${OPS_BIND:-127.0.0.1:8001}/   (the migration lead's page: counts, rate, errors; OPS_BIND=off disables it)
  Mail inbox     ${MAIL_INBOX_URL:-(SMTP_URL of the worker hosts)}   (customer e-mails; turn them on: bin/data-import import-suppliers configure DEMO_ENERGY --send-customer-emails)
  Processes      $API_REPLICAS API (port $PORT$( ((API_REPLICAS > 1)) && echo "-$((PORT + API_REPLICAS - 1))")), $PROCESS_WORKERS worker(s), supervised: pid files in $DATA/run
  Logs           $DATA/logs/api-1.log, $DATA/logs/worker-1.log, ... and supervisor.log (restarts)
  Build          $BUILD_ID (kept in data/builds/$BUILD_ID/); builds: bin/data-import deploy status
  Demo API key   ${API_KEY:-(kept from an earlier run; issue another: bin/data-import api-keys issue --organisation DEMO)}

  Import the example account (copy and paste):

  TOKEN=\$(curl -sS $API_URL/v1/graphql/ -H 'Content-Type: application/json' \\
    -d '{"query":"mutation(\$k:String!){obtainKrakenToken(input:{APIKey:\$k}){token}}","variables":{"k":"${API_KEY:-<API key>}"}}' \\
    | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.obtainKrakenToken.token')
  curl -sS -X POST $API_URL/v2/data-import/accounts/ -H "Authorization: Token \$TOKEN" \\
    -H 'Content-Type: application/json' --data @$ROOT/examples/account-dual-fuel.json
  curl -sS $API_URL/v2/data-import/accounts/DEMO_ENERGY/LEGACY-100045/ -H "Authorization: Token \$TOKEN"

  Builds (docs/deploys.md, "Under npm run up"):
$(printf '%s\n' "$BUILDS_INFO" | sed 's/^/  /')

  Press Ctrl-C to stop.
INFO

run_until_supervisor_exits
