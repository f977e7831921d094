import { spawn } from 'node:child_process';
import path from 'node:path';

/** A crash worker process (test/support/crashWorker.ts) started ahead of its test. */
export interface HeldCrashWorker {
  /** Lets it connect and poll; resolves once it polls (`ready`), rejects if it exited first. */
  start(): Promise<void>;
  /** Its signal once it exited (SIGKILL when it crashed as planned). */
  exited: Promise<NodeJS.Signals | null>;
  /** SIGKILL (no-op once it exited). */
  kill(): void;
}

/**
 * Spawns the crash worker with `env` (DATABASE_URL, TEMPORAL_ADDRESS, TASK_QUEUE, BUILD_ID,
 * SUBJECT_PREFIX, CRASH_AT, ...) and lets it load its modules at once, but not poll until
 * `start()`: its start under tsx (seconds, tens of seconds on a loaded machine) overlaps whatever
 * the test file does meanwhile instead of adding to it. Until `start()` it holds no connection.
 */
export function holdCrashWorker(env: Record<string, string | undefined>): HeldCrashWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'crashWorker.ts')], {
    env: { ...process.env, ...env, CRASH_WORKER_HOLD: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  let done = false;
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => {
      done = true;
      for (const w of waiters.splice(0)) w();
      resolve(signal);
    }),
  );
  /** Resolves once stdout has said `word`; rejects when the process exited first. */
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(`${word}\n`)) resolve();
        else if (done) reject(new Error(`crash worker exited before it said ${word} (${child.exitCode ?? child.signalCode})`));
        else waiters.push(check);
      };
      check();
    });
  return {
    async start() {
      await said('loaded');
      child.stdin!.write('go\n');
      await said('ready');
    },
    exited,
    kill() {
      if (!done) child.kill('SIGKILL');
    },
  };
}
