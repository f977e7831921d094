#!/usr/bin/env bash
# Brings up everything the service needs and runs it: PostgreSQL, NATS JetStream, Temporal
# (dev server + Web UI), migrations and demo data, then the API and the worker. Idempotent;
# Ctrl-C stops what this command started. See README "Quick start" and "Operations".
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  cat <<'USAGE'
Usage: scripts/up.sh [--local-services] [--help]

Brings up PostgreSQL, NATS (JetStream) and the Temporal dev server when they are not already
running, migrates the database, seeds the demo import supplier DEMO_ENERGY and the organisation
DEMO with an API key, then runs the API and the worker until Ctrl-C.

  --local-services  Start project-local PostgreSQL and NATS on free ports (data under
                    data/local/) even when the machine's own servers answer: for isolated runs
                    and to see what a fresh machine without those servers gets.
  --help            Show this help.

Environment: DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS, SMTP_URL (use those servers, start none;
without SMTP_URL a local mail sink with a web inbox starts on MAIL_SINK_SMTP_PORT/MAIL_SINK_WEB_PORT,
default 1025/1080), PORT,
HOST and every variable of the README's configuration table.
USAGE
}

FORCE_LOCAL="${DATA_IMPORT_LOCAL_SERVICES:-0}"
for arg in "$@"; do
  case "$arg" in
    --local-services) FORCE_LOCAL=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage; die "unknown option: $arg" ;;
  esac
done

trap cleanup EXIT INT TERM
T0=$(date +%s)
DATA="$ROOT/data"
[[ "$FORCE_LOCAL" == 1 ]] && DATA="$ROOT/data/local"
mkdir -p "$DATA"
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8000}"

if curl -fsS "http://$HOST:$PORT/healthz" >/dev/null 2>&1; then
  say "the API already answers on http://$HOST:$PORT: nothing to start (stop it first to restart)"
  trap - EXIT INT TERM
  exit 0
fi

ensure_node_modules

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
    start_temporal_dev 7233 8233 "$ROOT/data/temporal/temporal.db" "$ROOT/data/temporal/server.log"
    say "started the Temporal dev server on 127.0.0.1:7233 (Web UI http://127.0.0.1:8233), state in data/temporal/temporal.db"
  fi
  TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://127.0.0.1:8233}"
fi
export TEMPORAL_UI_URL
ensure_mail_sink "$DATA" "${MAIL_SINK_SMTP_PORT:-1025}" "${MAIL_SINK_WEB_PORT:-1080}"
export SMTP_URL
register_search_attributes "$TEMPORAL_ADDRESS" "${TEMPORAL_NAMESPACE:-default}"

say "building (TypeScript → dist/, workflow bundle)"
(cd "$ROOT" && npm run --silent build)

say "migrating the database and seeding demo data"
SETUP_OUT="$(cd "$ROOT" && node dist/scripts/setup.js --demo)"

mkdir -p "$DATA/logs"
# shellcheck disable=SC2086 # WORKER_NODE_OPTIONS is a list of node flags
node ${WORKER_NODE_OPTIONS:-} "$ROOT/dist/worker/main.js" >>"$DATA/logs/worker.log" 2>&1 &
STARTED_PIDS+=("$!")
node "$ROOT/dist/api/main.js" >>"$DATA/logs/api.log" 2>&1 &
STARTED_PIDS+=("$!")

for _ in $(seq 1 300); do
  curl -fsS "http://$HOST:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://$HOST:$PORT/readyz" >/dev/null 2>&1 || { tail -n 20 "$DATA/logs/api.log" "$DATA/logs/worker.log" >&2; die "the API did not become ready"; }

API_KEY="$(printf '%s\n' "$SETUP_OUT" | sed -n 's/^API_KEY=//p')"
say "ready in $(($(date +%s) - T0)) s"
cat <<INFO

  API            http://$HOST:$PORT          (readiness: /readyz, metrics: /metrics, OpenAPI: /openapi.json)
  Temporal UI    $TEMPORAL_UI_URL
  Mail inbox     $MAIL_INBOX_URL   (customer e-mails; turn them on: bin/data-import import-suppliers configure DEMO_ENERGY --send-customer-emails)
  Logs           $DATA/logs/api.log, $DATA/logs/worker.log
  Demo API key   ${API_KEY:-(kept from an earlier run; issue another: bin/data-import api-keys issue --organisation DEMO)}

  Import the example account (copy and paste):

  TOKEN=\$(curl -sS http://$HOST:$PORT/v1/graphql/ -H 'Content-Type: application/json' \\
    -d '{"query":"mutation(\$k:String!){obtainKrakenToken(input:{APIKey:\$k}){token}}","variables":{"k":"${API_KEY:-<API key>}"}}' \\
    | node -pe 'JSON.parse(require("fs").readFileSync(0)).data.obtainKrakenToken.token')
  curl -sS -X POST http://$HOST:$PORT/v2/data-import/accounts/ -H "Authorization: Token \$TOKEN" \\
    -H 'Content-Type: application/json' --data @$ROOT/examples/account-dual-fuel.json
  curl -sS http://$HOST:$PORT/v2/data-import/accounts/DEMO_ENERGY/LEGACY-100045/ -H "Authorization: Token \$TOKEN"

  Press Ctrl-C to stop.
INFO

wait -n "${STARTED_PIDS[@]}" || true
die "a service process exited; see $DATA/logs"
