import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { Supervisor, DEFAULT_STOP_GRACE_MS, type ChildSpec } from './supervisor';
import { apiNodeOptions, serviceProcessEnv, workerNodeOptions } from '../lib/nodeOptions';

/**
 * `node dist/scripts/supervise.js [--workers N] [--api-replicas M]`: runs the API and the worker
 * processes under a Supervisor (scripts/supervisor.ts) until SIGINT/SIGTERM. scripts/up.sh starts
 * it once PostgreSQL, NATS and Temporal answer; it reads the same environment as the services.
 *
 * Ports (docs/operations.md "Supervision and ports"): API replica i listens on PORT + i - 1; worker i gets
 * WORKER_METRICS_PORT = base + 2(i - 1) (its SDK metrics take the port after it), base being
 * WORKER_METRICS_PORT or 9464; 0 turns worker metrics off for all. A port that is taken anyway
 * makes a worker fall back to a free one (worker/metricsPorts.ts); an API replica has no fallback.
 */

export const DEFAULT_WORKER_METRICS_PORT = 9464;
export const DEFAULT_API_PORT = 8000;

export interface ServiceOptions {
  workers: number;
  apiReplicas: number;
  /** The environment the services get (ports are set per child on top of it). */
  env: NodeJS.ProcessEnv;
  /** Folder of the per-child log files `<name>.log`; default: inherited output. */
  logDir?: string;
  /** Node flags for the worker processes; default: WORKER_NODE_OPTIONS of `env`, else lib/nodeOptions.ts's. */
  workerNodeOptions?: string[];
  /** Node flags for the API processes; default: API_NODE_OPTIONS of `env`, else lib/nodeOptions.ts's. */
  apiNodeOptions?: string[];
  /** Folder holding api/main.js and worker/main.js (or .ts, run with tsx); default: this file's parent. */
  root?: string;
}

function entry(root: string, part: 'api' | 'worker'): string[] {
  const js = path.join(root, part, 'main.js');
  if (fs.existsSync(js)) return [js];
  return ['--import', 'tsx', path.join(root, part, 'main.ts')];
}

/** The children `npm run up` supervises: api-1…api-M and worker-1…worker-N, each with its own ports. */
export function serviceChildren(o: ServiceOptions): ChildSpec[] {
  const root = o.root ?? path.join(__dirname, '..');
  const logFile = (name: string) => (o.logDir ? path.join(o.logDir, `${name}.log`) : undefined);
  const apiPort = o.env.PORT ? Number(o.env.PORT) : DEFAULT_API_PORT;
  const metricsBase = o.env.WORKER_METRICS_PORT ? Number(o.env.WORKER_METRICS_PORT) : DEFAULT_WORKER_METRICS_PORT;
  const children: ChildSpec[] = [];
  const env = serviceProcessEnv(o.env);
  for (let i = 1; i <= o.apiReplicas; i++) {
    children.push({ name: `api-${i}`, command: process.execPath, args: [...(o.apiNodeOptions ?? apiNodeOptions(o.env)), ...entry(root, 'api')], env: { ...env, PORT: String(apiPort + i - 1) }, logFile: logFile(`api-${i}`) });
  }
  for (let i = 1; i <= o.workers; i++) {
    children.push({
      name: `worker-${i}`,
      command: process.execPath,
      args: [...(o.workerNodeOptions ?? workerNodeOptions(o.env)), ...entry(root, 'worker')],
      env: { ...env, WORKER_METRICS_PORT: String(metricsBase === 0 ? 0 : metricsBase + 2 * (i - 1)) },
      logFile: logFile(`worker-${i}`),
    });
  }
  return children;
}

function positive(max: number) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`expected an integer from 1 to ${max}.`);
    return n;
  };
}

async function main(): Promise<void> {
  const program = new Command('supervise')
    .description('Run the API and the worker processes, restarting any that exits (exponential backoff 1 s … 30 s, reset after 30 s up); SIGINT/SIGTERM stops them all gracefully.')
    .option('--workers <n>', 'worker processes', positive(64), 1)
    .option('--api-replicas <m>', 'API processes; replica i listens on PORT + i - 1', positive(64), 1)
    .option('--run-dir <dir>', 'pid files <name>.pid of the running children', 'data/run')
    .option('--log-dir <dir>', 'log files <name>.log of the children, and supervisor.log', 'data/logs')
    .option('--stop-grace <seconds>', 'time between SIGTERM and SIGKILL when stopping', positive(3600), DEFAULT_STOP_GRACE_MS / 1000)
    .parse();
  const o = program.opts<{ workers: number; apiReplicas: number; runDir: string; logDir: string; stopGrace: number }>();
  fs.mkdirSync(o.logDir, { recursive: true });
  fs.mkdirSync(o.runDir, { recursive: true });
  const ownLog = path.join(o.logDir, 'supervisor.log');
  const supervisor = new Supervisor({
    children: serviceChildren({
      workers: o.workers,
      apiReplicas: o.apiReplicas,
      env: process.env,
      logDir: o.logDir,
    }),
    runDir: o.runDir,
    stopGraceMs: o.stopGrace * 1000,
    log: (line) => {
      process.stderr.write(`${line}\n`);
      fs.appendFileSync(ownLog, `${line}\n`);
    },
  });
  const pidFile = path.join(o.runDir, 'supervisor.pid');
  fs.writeFileSync(pidFile, `${process.pid}\n`);
  const received = new Set<NodeJS.Signals>();
  const onSignal = (sig: NodeJS.Signals) => {
    // Ctrl-C reaches both up.sh and this process, and up.sh then sends SIGTERM: only the same
    // signal twice (a second Ctrl-C) means "do not wait any longer".
    if (received.has(sig)) {
      process.stderr.write(`[supervisor] ${sig} again: SIGKILL to every service\n`);
      supervisor.killAll();
      return;
    }
    const first = received.size === 0;
    received.add(sig);
    if (!first) return;
    process.stderr.write(`[supervisor] ${sig}: stopping the services\n`);
    void supervisor.stop().then(() => {
      fs.rmSync(pidFile, { force: true });
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  supervisor.start();
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`supervisor failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
