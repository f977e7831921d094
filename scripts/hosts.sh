#!/usr/bin/env bash
# The several-hosts harness (docs/scaling.md, "The reference deployment"): the real service on
# hosts of one machine — network namespaces on a bridge of their own (10.213.7.0/24) — and faults
# applied to a host (its link cut, to everything or to one peer; its processes frozen or killed)
# at seeded random moments of a real migration, every link authenticated and encrypted. It needs
# root (ip netns, iptables); it installs haproxy and iptables (openssl, curl) from Debian when they
# are missing, builds the project, then runs
# test/hosts/run.ts, which creates the hosts, runs the scenarios, checks the invariants and
# removes everything it made. Arguments go to the runner (--help lists them).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

for arg in "$@"; do
  case "$arg" in
    -h | --help) (cd "$ROOT" && npx tsx test/hosts/run.ts --help); exit 0 ;;
    # The scenarios (and the intruder check) the arguments would run, without root or hosts:
    # scripts/test.sh counts them, as skipped when it leaves the harness out.
    --plan) cd "$ROOT" && exec npx tsx test/hosts/run.ts "$@" ;;
  esac
done

[[ "$(id -u)" == 0 ]] || die "the hosts harness needs root (network namespaces, iptables): run it as root or with sudo"
command -v ip >/dev/null 2>&1 || die "iproute2 (ip) is missing"

# haproxy and iptables from Debian, once; openssl (the run's CA and certificates) and curl (each NATS
# node's monitoring, read on its own loopback) too where a minimal system lacks them.
missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v iptables >/dev/null 2>&1 || missing+=(iptables)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# PostgreSQL on two hosts (docs/scaling.md, "PostgreSQL on two hosts"): Patroni and etcd from Debian.
command -v patroni >/dev/null 2>&1 || missing+=(patroni)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
# Continuous WAL archiving, base backups and the restore drill (docs/operations.md, "Backups and
# restore"): pgBackRest from Debian.
command -v pgbackrest >/dev/null 2>&1 || missing+=(pgbackrest)
if ((${#missing[@]})); then
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
  say "installing ${missing[*]} from Debian"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
  fi
fi
# The Debian packages start a haproxy, a patroni and an etcd of their own (pgbackrest: nothing) where systemd runs; the
# harness runs its own.

# Removes what a run (this one, or a crashed earlier one) left: the processes inside the
# harness's namespaces, the namespaces (their veths and iptables rules go with them), the bridge.
hosts_cleanup() {
  local ns pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^dih-' || true); do
    for pid in $(ip netns pids "$ns" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 50); do [[ -z "$(ip netns pids "$ns" 2>/dev/null)" ]] && break; sleep 0.1; done
    ip netns delete "$ns" 2>/dev/null || true
  done
  ip link delete dih-br 2>/dev/null || true
  rm -rf /tmp/dih-run
}

finish() {
  local code=$?
  trap - EXIT INT TERM
  hosts_cleanup
  exit "$code"
}

# The harness's namespaces, bridge and subnet have fixed names: one run at a time on a machine. A
# second run (another checkout's, say) waits for the first instead of removing its hosts.
exec 9>/tmp/data-import-hosts.lock
if ! flock -n 9; then
  say "another run of the hosts harness is under way on this machine; waiting for it to finish"
  flock 9
fi
if ip netns list 2>/dev/null | grep -q '^dih-' || ip link show dih-br >/dev/null 2>&1; then
  say "removing what an earlier run of the hosts harness left"
fi
hosts_cleanup
trap finish EXIT INT TERM

ensure_node_modules
if [[ "${HOSTS_SKIP_BUILD:-0}" != 1 ]]; then
  say "building (TypeScript → dist/, workflow bundle)"
  (cd "$ROOT" && npm run --silent build)
fi

# The binaries the hosts run, found as the other scripts find them.
HOSTS_PG_BIN="$(pg_bin_dir)"
HOSTS_NATS_SERVER="$(nats_server_bin)"
HOSTS_HAPROXY="$(command -v haproxy)"
HOSTS_PATRONI="$(command -v patroni)"
HOSTS_ETCD="$(command -v etcd)"
HOSTS_PGBACKREST="$(command -v pgbackrest)"
# The dev server's arguments as `npm run up` has them (search attributes, dynamic config), on the
# Temporal host's address instead of loopback, in memory.
temporal_dev_argv 7233 0 ""
argv=()
for a in "${TEMPORAL_DEV_ARGV[@]}"; do [[ "$a" == 127.0.0.1 ]] && argv+=(@IP@) || argv+=("$a"); done
HOSTS_TEMPORAL_ARGV="$(printf '%s\n' "$(tool_path temporal)" "${argv[@]}")"
PG_USER=postgres; id "$PG_USER" >/dev/null 2>&1 || PG_USER=dataimport
id "$PG_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_USER"
export HOSTS_PG_BIN HOSTS_NATS_SERVER HOSTS_HAPROXY HOSTS_PATRONI HOSTS_ETCD HOSTS_PGBACKREST HOSTS_TEMPORAL_ARGV HOSTS_PG_USER="$PG_USER"

cd "$ROOT"
T0=$(date +%s)
set +e
npx tsx test/hosts/run.ts "$@"
code=$?
set -e
say "hosts harness finished in $(($(date +%s) - T0)) s (exit $code)"
exit "$code"
