/**
 * The hosts of the harness (docs/scaling.md, "The reference deployment"): one network namespace
 * per host, each with its own address on a bridge the harness creates, and the faults applied to
 * a host — its link cut (every packet dropped silently, both ways, no reset: what a host that
 * loses power or its link looks like), cut to one peer only, its processes frozen (SIGSTOP) or
 * killed. Everything is named `dih-*` so that a leftover of a crashed run is found and removed
 * (scripts/hosts.sh does it at start and on exit; teardown() here too).
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const BRIDGE = 'dih-br';
export const SUBNET_PREFIX = '10.213.7';
/** The root namespace's address on the bridge (the test runner, the migrate client, the checks). */
export const GATEWAY = `${SUBNET_PREFIX}.1`;

export interface Host {
  /** Short name: pg1, pg2, dcs, temporal, nats1…3, worker1…2, api1…2, lb, smtp, intruder. */
  name: string;
  ns: string;
  ip: string;
}

export const HOSTS = {
  /** PostgreSQL with Patroni and an etcd member: the primary at start (docs/scaling.md, "PostgreSQL on two hosts"). */
  pg1: 10,
  temporal: 11,
  /** PostgreSQL with Patroni and an etcd member: the synchronous standby at start. */
  pg2: 12,
  /** The third etcd member: the DCS keeps its quorum when one PostgreSQL host is lost. */
  dcs: 13,
  nats1: 21,
  nats2: 22,
  nats3: 23,
  worker1: 31,
  worker2: 32,
  api1: 41,
  api2: 42,
  lb: 50,
  smtp: 60,
  /** A host of the subnet that holds no credential of the deployment (test/hosts/intruder.ts). */
  intruder: 99,
} as const;
export type HostName = keyof typeof HOSTS;

export const host = (name: HostName): Host => ({ name, ns: `dih-${name}`, ip: `${SUBNET_PREFIX}.${HOSTS[name]}` });
export const allHosts = (): Host[] => (Object.keys(HOSTS) as HostName[]).map(host);

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
}

/** Like sh, but a failure is ignored (teardown of what may not exist). */
function shQuiet(cmd: string, args: string[]): void {
  spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 });
}

const inNs = (h: Host, cmd: string, args: string[]) => sh('ip', ['netns', 'exec', h.ns, cmd, ...args]);

/** The pids of every process inside a host's namespace. */
export function pidsOf(h: Host): number[] {
  const r = spawnSync('ip', ['netns', 'pids', h.ns], { encoding: 'utf8', timeout: 10_000 });
  return (r.stdout ?? '').split(/\s+/).filter(Boolean).map(Number);
}

/**
 * Creates the bridge and every host: namespace, veth pair (eth0 inside), address, loopback up. No
 * default route: a host reaches the other hosts and the gateway, nothing beyond the bridge.
 */
export function createHosts(): Host[] {
  sh('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
  sh('ip', ['addr', 'add', `${GATEWAY}/24`, 'dev', BRIDGE]);
  sh('ip', ['link', 'set', BRIDGE, 'up']);
  const hosts = allHosts();
  for (const h of hosts) {
    const outside = `dih-v-${h.name}`.slice(0, 15);
    sh('ip', ['netns', 'add', h.ns]);
    // The kernel removes a deleted namespace's veths asynchronously: a pair of the previous run
    // may still be going (RTNETLINK "File exists"). Tried again for up to 5 s.
    for (let attempt = 1; ; attempt++) {
      shQuiet('ip', ['link', 'delete', outside]);
      try {
        sh('ip', ['link', 'add', outside, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.ns]);
        break;
      } catch (err) {
        if (attempt >= 10) throw err;
        spawnSync('sleep', ['0.5']);
      }
    }
    sh('ip', ['link', 'set', outside, 'master', BRIDGE]);
    sh('ip', ['link', 'set', outside, 'up']);
    inNs(h, 'ip', ['addr', 'add', `${h.ip}/24`, 'dev', 'eth0']);
    inNs(h, 'ip', ['link', 'set', 'eth0', 'up']);
    inNs(h, 'ip', ['link', 'set', 'lo', 'up']);
  }
  return hosts;
}

/** Kills every process of every host, removes the namespaces (veths and rules go with them) and the bridge. */
export function teardown(): void {
  const r = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8', timeout: 10_000 });
  const names = (r.stdout ?? '').split('\n').map((l) => l.split(' ')[0]!).filter((n) => n.startsWith('dih-'));
  for (const ns of names) {
    const h: Host = { name: ns.slice(4), ns, ip: '' };
    for (const pid of pidsOf(h)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  for (const ns of names) {
    const h: Host = { name: ns.slice(4), ns, ip: '' };
    for (let i = 0; i < 50 && pidsOf(h).length > 0; i++) spawnSync('sleep', ['0.1']);
    shQuiet('ip', ['netns', 'delete', ns]);
  }
  shQuiet('ip', ['link', 'delete', BRIDGE]);
}

// --- Faults --------------------------------------------------------------------------------------

/** Every packet of the host dropped, both ways, silently (loopback inside the host still works). */
export function cutLink(h: Host): void {
  inNs(h, 'iptables', ['-w', '-A', 'INPUT', '!', '-i', 'lo', '-j', 'DROP']);
  inNs(h, 'iptables', ['-w', '-A', 'OUTPUT', '!', '-o', 'lo', '-j', 'DROP']);
}

/** The host's packets to and from one peer dropped, both ways, silently. */
export function cutPeer(h: Host, peer: Host): void {
  inNs(h, 'iptables', ['-w', '-A', 'INPUT', '-s', peer.ip, '-j', 'DROP']);
  inNs(h, 'iptables', ['-w', '-A', 'OUTPUT', '-d', peer.ip, '-j', 'DROP']);
}

/** Every cut of the host lifted. */
export function heal(h: Host): void {
  inNs(h, 'iptables', ['-w', '-F', 'INPUT']);
  inNs(h, 'iptables', ['-w', '-F', 'OUTPUT']);
}

function signalAll(h: Host, signal: NodeJS.Signals): number[] {
  const pids = pidsOf(h);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

/** Every process of the host stopped (SIGSTOP): a frozen VM. */
export const freeze = (h: Host) => signalAll(h, 'SIGSTOP');
/** The frozen processes resumed (SIGCONT). */
export const thaw = (h: Host) => signalAll(h, 'SIGCONT');
/** Every process of the host SIGKILLed (the host's kernel stays: its sockets are reset, not silent). */
export const killAll = (h: Host) => signalAll(h, 'SIGKILL');
