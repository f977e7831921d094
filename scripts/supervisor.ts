// long-file (338 lines): the supervisor with its restart, stop and pid-file logic in one class.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Keeps service processes running: a child that exits (crash, SIGKILL, out of memory) is started
 * again after an exponential backoff (1 s, 2 s, 4 s … capped), which resets once the child has
 * stayed up `resetAfterMs`. Nothing else is touched when a child dies: the servers the run
 * command started (Temporal, databases) belong to the caller. `stop()` sends SIGTERM to every
 * child and SIGKILL to those still alive after `stopGraceMs`.
 *
 * Used by `npm run up` (scripts/supervise.ts) and by the fault suite, which reads a child's pid
 * with `pid(name)` / `status()` or from `<runDir>/<name>.pid`, kills it, and waits for the next
 * start with `waitForStart(name, { notPid })`.
 */

export interface ChildSpec {
  /** Unique name: `api-1`, `worker-2`; names the pid file and the log lines. */
  name: string;
  command: string;
  args: string[];
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here (and the supervisor's lines about this child); default: inherited. */
  logFile?: string;
}

export interface BackoffOptions {
  /** First restart delay; default 1000 ms. Doubles with each restart. */
  initialMs?: number;
  /** Longest restart delay; default 30000 ms. */
  maxMs?: number;
  /** A child up at least this long counts as healthy: its next crash restarts after initialMs again. Default 30000 ms. */
  resetAfterMs?: number;
}

export interface SupervisorOptions {
  children: ChildSpec[];
  /** Where `<name>.pid` files are kept while a child runs; default none. */
  runDir?: string;
  backoff?: BackoffOptions;
  /** Time between SIGTERM and SIGKILL on stop(); default 65000 ms (the worker drains for up to 60 s). */
  stopGraceMs?: number;
  /** Where the supervisor's own lines go; default stderr. */
  log?: (line: string) => void;
}

export type ChildState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds the child had been running. */
  uptimeMs: number;
  at: number;
}

export interface ChildStatus {
  name: string;
  pid: number | null;
  state: ChildState;
  /** Times this child was started again after an exit. */
  restarts: number;
  startedAt: number | null;
  lastExit: ChildExit | null;
  /** When a restart is pending: when it happens. */
  nextStartAt: number | null;
}

export interface SupervisorEvents {
  start: [name: string, pid: number, restarts: number];
  exit: [name: string, exit: ChildExit, restartInMs: number | null];
}

interface Slot {
  spec: ChildSpec;
  proc: ChildProcess | null;
  pid: number | null;
  state: ChildState;
  restarts: number;
  /** Consecutive quick crashes: the exponent of the next backoff. */
  attempt: number;
  startedAt: number | null;
  lastExit: ChildExit | null;
  nextStartAt: number | null;
  timer: NodeJS.Timeout | null;
  exited: Promise<void> | null;
  /** Stopped for good by retire(): not started again. */
  retired: boolean;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 30_000 };
export const DEFAULT_STOP_GRACE_MS = 65_000;

/** Restart delay after `attempt` quick crashes in a row. */
export function restartDelayMs(attempt: number, b: Required<BackoffOptions> = DEFAULT_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** attempt);
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

export class Supervisor extends EventEmitter<SupervisorEvents> {
  private readonly slots = new Map<string, Slot>();
  private readonly backoff: Required<BackoffOptions>;
  private readonly stopGraceMs: number;
  private readonly log: (line: string) => void;
  private stopping: Promise<void> | null = null;

  constructor(private readonly opts: SupervisorOptions) {
    super();
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.stopGraceMs = opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    this.log = opts.log ?? ((line) => void process.stderr.write(`${line}\n`));
    for (const spec of opts.children) {
      if (this.slots.has(spec.name)) throw new Error(`two children named ${spec.name}`);
      this.slots.set(spec.name, { spec, proc: null, pid: null, state: 'stopped', restarts: 0, attempt: 0, startedAt: null, lastExit: null, nextStartAt: null, timer: null, exited: null, retired: false });
    }
    if (opts.runDir) fs.mkdirSync(opts.runDir, { recursive: true });
  }

  /** Starts every child. */
  start(): void {
    for (const slot of this.slots.values()) this.spawn(slot);
  }

  status(): ChildStatus[] {
    return [...this.slots.values()].map((s) => ({
      name: s.spec.name,
      pid: s.pid,
      state: s.state,
      restarts: s.restarts,
      startedAt: s.startedAt,
      lastExit: s.lastExit,
      nextStartAt: s.nextStartAt,
    }));
  }

  /** The running child's pid, or null while it is down. */
  pid(name: string): number | null {
    return this.slot(name).pid;
  }

  /** Resolves with the pid of the child once it runs as a process other than `notPid`. */
  waitForStart(name: string, opts: { notPid?: number | null; timeoutMs?: number } = {}): Promise<number> {
    const slot = this.slot(name);
    if (slot.pid !== null && slot.pid !== opts.notPid) return Promise.resolve(slot.pid);
    return new Promise((resolve, reject) => {
      const timer = opts.timeoutMs ? setTimeout(() => done(new Error(`${name} did not start within ${opts.timeoutMs} ms`)), opts.timeoutMs) : null;
      const onStart = (n: string, pid: number) => {
        if (n === name && pid !== opts.notPid) done(null, pid);
      };
      const done = (err: Error | null, pid?: number) => {
        if (timer) clearTimeout(timer);
        this.off('start', onStart);
        if (err) reject(err);
        else resolve(pid!);
      };
      this.on('start', onStart);
    });
  }

  /** SIGTERM to every child, SIGKILL after the grace period; resolves once all have exited. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  /**
   * Stops one child for good (SIGTERM, SIGKILL after the grace period) and never starts it again:
   * the run command retires the workers of an old build once it has drained. Resolves once it
   * has exited.
   */
  async retire(name: string): Promise<void> {
    const slot = this.slot(name);
    if (slot.retired) return;
    slot.retired = true;
    if (slot.timer) {
      clearTimeout(slot.timer);
      slot.timer = null;
      slot.nextStartAt = null;
      slot.state = 'stopped';
    }
    if (slot.pid === null) return;
    this.say(`${name} (pid ${slot.pid}) retired: SIGTERM, SIGKILL after ${seconds(this.stopGraceMs)}`, slot);
    const exited = slot.exited!;
    this.signal(slot, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), this.stopGraceMs)));
    const outcome = await Promise.race([exited.then(() => 'exited' as const), graceOver]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.signal(slot, 'SIGKILL');
      await exited;
    }
  }

  /** SIGKILL to every child now (a second Ctrl-C). */
  killAll(): void {
    for (const slot of this.slots.values()) if (slot.pid !== null) this.signal(slot, 'SIGKILL');
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no child named ${name}`);
    return slot;
  }

  private say(line: string, slot?: Slot): void {
    const stamped = `[supervisor] ${new Date().toISOString()} ${line}`;
    this.log(stamped);
    // The child's own log then tells why it restarted, next to its last lines.
    if (slot?.spec.logFile) {
      try {
        fs.appendFileSync(slot.spec.logFile, `${stamped}\n`);
      } catch {
        /* an unwritable log must not stop supervision */
      }
    }
  }

  private pidFile(slot: Slot): string | null {
    return this.opts.runDir ? path.join(this.opts.runDir, `${slot.spec.name}.pid`) : null;
  }

  private spawn(slot: Slot): void {
    slot.timer = null;
    slot.nextStartAt = null;
    slot.state = 'starting';
    const { spec } = slot;
    let out: number | 'inherit' = 'inherit';
    if (spec.logFile) {
      fs.mkdirSync(path.dirname(spec.logFile), { recursive: true });
      out = fs.openSync(spec.logFile, 'a');
    }
    // detached: its own process group, so a Ctrl-C in the terminal reaches only the supervisor,
    // which then stops the children one way (SIGTERM, once) instead of each getting SIGINT too.
    const proc = spawn(spec.command, spec.args, { env: spec.env ?? process.env, cwd: spec.cwd, stdio: ['ignore', out, out], detached: true });
    if (typeof out === 'number') fs.closeSync(out);
    slot.proc = proc;
    let resolveExited!: () => void;
    slot.exited = new Promise((r) => (resolveExited = r));
    let ended = false;
    const onEnd = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (ended) return;
      ended = true;
      this.onExit(slot, code, signal, error);
      resolveExited();
    };
    proc.once('error', (err) => onEnd(null, null, err)); // could not be started (no such file...)
    proc.once('exit', (code, signal) => onEnd(code, signal));
    if (proc.pid === undefined) return; // 'error' follows
    slot.pid = proc.pid;
    slot.startedAt = Date.now();
    slot.state = 'running';
    const pidFile = this.pidFile(slot);
    if (pidFile) fs.writeFileSync(pidFile, `${proc.pid}\n`);
    this.say(`${spec.name} started (pid ${proc.pid}${slot.restarts ? `, restart ${slot.restarts}` : ''})`, slot);
    this.emit('start', spec.name, proc.pid, slot.restarts);
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null, error?: Error): void {
    const now = Date.now();
    const uptimeMs = slot.startedAt !== null && slot.pid !== null ? now - slot.startedAt : 0;
    const exit: ChildExit = { code, signal, uptimeMs, at: now };
    const pidFile = this.pidFile(slot);
    if (pidFile) fs.rmSync(pidFile, { force: true });
    slot.proc = null;
    slot.pid = null;
    slot.lastExit = exit;
    const what = error ? `could not be started (${error.message})` : `exited (${describeExit(code, signal)}) after ${seconds(uptimeMs)}`;
    if (this.stopping || slot.retired) {
      slot.state = 'stopped';
      this.say(`${slot.spec.name} ${what}`, slot);
      this.emit('exit', slot.spec.name, exit, null);
      return;
    }
    if (uptimeMs >= this.backoff.resetAfterMs) slot.attempt = 0;
    const delay = restartDelayMs(slot.attempt, this.backoff);
    slot.attempt++;
    slot.restarts++;
    slot.state = 'restarting';
    slot.nextStartAt = now + delay;
    this.say(`${slot.spec.name} ${what}; restarting in ${seconds(delay)} (restart ${slot.restarts})`, slot);
    this.emit('exit', slot.spec.name, exit, delay);
    slot.timer = setTimeout(() => this.spawn(slot), delay);
  }

  private signal(slot: Slot, sig: NodeJS.Signals): void {
    if (slot.pid === null) return;
    try {
      process.kill(-slot.pid, sig); // the child's process group: anything it started goes too
    } catch {
      try {
        process.kill(slot.pid, sig);
      } catch {
        /* already gone */
      }
    }
  }

  private async stopAll(): Promise<void> {
    const running: Slot[] = [];
    for (const slot of this.slots.values()) {
      if (slot.timer) {
        clearTimeout(slot.timer);
        slot.timer = null;
        slot.nextStartAt = null;
        slot.state = 'stopped';
      }
      if (slot.pid !== null) running.push(slot);
    }
    if (running.length === 0) return;
    this.say(`stopping ${running.map((s) => `${s.spec.name} (pid ${s.pid})`).join(', ')}: SIGTERM, SIGKILL after ${seconds(this.stopGraceMs)}`);
    for (const slot of running) this.signal(slot, 'SIGTERM');
    await Promise.all(
      running.map(async (slot) => {
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), this.stopGraceMs)));
        const outcome = await Promise.race([slot.exited!.then(() => 'exited' as const), graceOver]);
        clearTimeout(timer);
        if (outcome === 'timeout') {
          this.say(`${slot.spec.name} did not stop within ${seconds(this.stopGraceMs)}: SIGKILL`, slot);
          this.signal(slot, 'SIGKILL');
          await slot.exited;
        }
      }),
    );
  }
}
