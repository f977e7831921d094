#!/usr/bin/env bash
# Restores the service's PostgreSQL from its pgBackRest repository (base backup + archived WAL) to
# a moment — a time, a named restore point, or the end of the archive — into a scratch data
# directory, and starts it there on a port of its own as a primary (recovery ends, the server is
# promoted). The repository and the running cluster are only read: the scratch server archives
# nothing (archive_mode=off) and has no standby to wait for. docs/operations.md, "Backups and
# restore" (the drill: start the service on it, `data-import reconcile` the book, migrate again).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  cat <<'USAGE'
Usage: scripts/pg-restore.sh --stanza NAME --data DIR --port N
                             [--target-time 'YYYY-MM-DD HH:MM:SS.sss+00' | --target-name NAME]
                             [--config FILE] [--listen ADDR] [--socket-dir DIR] [--hba-file FILE]
                             [--ssl-cert FILE --ssl-key FILE]

  --stanza NAME       the pgBackRest stanza of the cluster (the harness's: dih)
  --config FILE       pgBackRest's configuration naming the repository (default: pgBackRest's own,
                      /etc/pgbackrest.conf); its pg1-path is replaced by --data
  --target-time TS    recover up to this moment (commits at or before it), then promote
  --target-name NAME  recover up to this restore point (SELECT pg_create_restore_point('NAME'))
                      neither: recover to the end of the archive
  --data DIR          the scratch data directory: must not exist or be empty
  --port N            the scratch server's port
  --listen ADDR       listen_addresses (default 127.0.0.1)
  --socket-dir DIR    unix_socket_directories (default: the data directory's parent)
  --hba-file FILE     pg_hba.conf of the scratch server (default: the restored one)
  --ssl-cert/--ssl-key  the scratch server's TLS certificate and key (default: no TLS)

The restored postgresql.conf is kept as postgresql.conf.restored; the scratch server runs on a
short configuration of its own (port, addresses, TLS, no archiving, no synchronous standby). Runs
pgBackRest and PostgreSQL as the PostgreSQL user (postgres, else dataimport) when started as root.
It prints the backup used, where recovery stopped, the timeline and the address to connect to.
Stop the scratch server with: pg_ctl -D DIR stop (as that user).
USAGE
}

STANZA="" CONFIG="" TARGET_TIME="" TARGET_NAME="" DATA="" PORT="" LISTEN=127.0.0.1 SOCKET_DIR="" HBA="" SSL_CERT="" SSL_KEY=""
while (($#)); do
  case "$1" in
    --stanza) STANZA="$2"; shift ;;
    --config) CONFIG="$2"; shift ;;
    --target-time) TARGET_TIME="$2"; shift ;;
    --target-name) TARGET_NAME="$2"; shift ;;
    --data) DATA="$2"; shift ;;
    --port) PORT="$2"; shift ;;
    --listen) LISTEN="$2"; shift ;;
    --socket-dir) SOCKET_DIR="$2"; shift ;;
    --hba-file) HBA="$2"; shift ;;
    --ssl-cert) SSL_CERT="$2"; shift ;;
    --ssl-key) SSL_KEY="$2"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument $1" ;;
  esac
  shift
done
[[ -n "$STANZA" && -n "$DATA" && -n "$PORT" ]] || { usage >&2; die "--stanza, --data and --port are required"; }
[[ -z "$TARGET_TIME" || -z "$TARGET_NAME" ]] || die "give --target-time or --target-name, not both"
if [[ -n "$SSL_CERT" && -z "$SSL_KEY" ]] || [[ -z "$SSL_CERT" && -n "$SSL_KEY" ]]; then die "--ssl-cert and --ssl-key go together"; fi
command -v pgbackrest >/dev/null 2>&1 || die "pgbackrest is not installed (Debian: apt-get install pgbackrest; scripts/hosts.sh installs it)"
if [[ -e "$DATA" && -n "$(ls -A "$DATA" 2>/dev/null)" ]]; then die "$DATA is not empty: a restore goes into a scratch directory"; fi
DATA="$(realpath -m "$DATA")"
SOCKET_DIR="${SOCKET_DIR:-$(dirname "$DATA")}"
BIN="$(dirname "$(realpath "$(pg_bin_dir)/pg_ctl")")"

PGUSER_OS="$(id -un)"
if [[ "$(id -u)" == 0 ]]; then
  PGUSER_OS=postgres; id "$PGUSER_OS" >/dev/null 2>&1 || PGUSER_OS=dataimport
  id "$PGUSER_OS" >/dev/null 2>&1 || useradd --system --no-create-home "$PGUSER_OS"
fi
mkdir -p "$DATA" "$SOCKET_DIR"
chmod 700 "$DATA"
[[ "$(id -u)" == 0 ]] && chown "$PGUSER_OS" "$DATA" "$SOCKET_DIR"

restore_args=(--stanza="$STANZA" --pg1-path="$DATA" --archive-mode=off --log-level-console=info)
[[ -n "$CONFIG" ]] && restore_args=(--config="$CONFIG" "${restore_args[@]}")
if [[ -n "$TARGET_TIME" ]]; then
  restore_args+=(--type=time --target="$TARGET_TIME" --target-action=promote)
  what="to the moment $TARGET_TIME"
elif [[ -n "$TARGET_NAME" ]]; then
  restore_args+=(--type=name --target="$TARGET_NAME" --target-action=promote)
  what="to the restore point $TARGET_NAME"
else
  what="to the end of the archive"
fi
say "restoring stanza $STANZA $what into $DATA"
T0=$SECONDS
as_pg_user pgbackrest "${restore_args[@]}" restore | grep -E 'INFO: (restore backup set|restore command end)|WARN|ERROR' >&2 || true
[[ -f "$DATA/PG_VERSION" ]] || die "pgBackRest restored nothing into $DATA (see its output above)"

# A short configuration of the scratch server's own; the restored one (a Patroni node's: its
# addresses, certificates, synchronous standby names, archive command) kept aside.
[[ -f "$DATA/postgresql.conf" ]] && mv "$DATA/postgresql.conf" "$DATA/postgresql.conf.restored"
{
  echo "# scripts/pg-restore.sh: a restored copy ($what), started on its own"
  echo "listen_addresses = '$LISTEN'"
  echo "port = $PORT"
  echo "unix_socket_directories = '$SOCKET_DIR'"
  echo "max_connections = 200"
  echo "max_wal_senders = 10"
  echo "max_replication_slots = 10"
  echo "wal_level = replica"
  echo "archive_mode = off"
  echo "synchronous_standby_names = ''"
  echo "password_encryption = 'scram-sha-256'"
  echo "hba_file = '$DATA/pg_hba.conf'"
  echo "ident_file = '$DATA/pg_ident.conf'"
  if [[ -n "$SSL_CERT" ]]; then
    echo "ssl = on"
    echo "ssl_cert_file = '$SSL_CERT'"
    echo "ssl_key_file = '$SSL_KEY'"
    echo "ssl_min_protocol_version = 'TLSv1.2'"
  fi
} >"$DATA/postgresql.conf"
[[ -n "$HBA" ]] && cp "$HBA" "$DATA/pg_hba.conf"
[[ -f "$DATA/pg_ident.conf" ]] || : >"$DATA/pg_ident.conf"
[[ "$(id -u)" == 0 ]] && chown -R "$PGUSER_OS" "$DATA"

as_pg_user "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t 600 start >/dev/null || { tail -n 30 "$DATA/server.log" >&2; die "the restored server did not start (log: $DATA/server.log)"; }
# Recovery replays the archive up to the target, then promotes (target-action=promote).
for _ in $(seq 1 1200); do
  state="$(as_pg_user "$BIN/psql" -h "$SOCKET_DIR" -p "$PORT" -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null || true)"
  [[ "$state" == f ]] && break
  sleep 0.5
done
[[ "$state" == f ]] || { tail -n 30 "$DATA/server.log" >&2; die "the restored server did not finish recovery within 600 s (log: $DATA/server.log)"; }
say "base backup: $(sed -n 's/^LABEL: //p' "$DATA/backup_label.old" 2>/dev/null || echo '?')"
grep -hE 'recovery stopping|last completed transaction|selected new timeline|archive recovery complete|consistent recovery state' "$DATA/server.log" | sed 's/^/[restored server] /' >&2 || true
timeline="$(as_pg_user "$BIN/psql" -h "$SOCKET_DIR" -p "$PORT" -U postgres -d postgres -Atc 'SELECT timeline_id FROM pg_control_checkpoint()' 2>/dev/null || echo '?')"
say "restored $what in $((SECONDS - T0)) s; a primary on timeline $timeline, listening on $LISTEN:$PORT (socket $SOCKET_DIR), data $DATA"
echo "RESTORED_DATA=$DATA"
echo "RESTORED_PORT=$PORT"
