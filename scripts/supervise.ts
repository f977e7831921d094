// long-file (351 lines): one entry point: its options, the ports of each process, the API and worker processes and their shutdown.
import fs from 'node:fs';
import os from 'node:os';
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
  /**
   * Older builds whose workers run beside this build's (docs/deploys.md, "Under npm run up"):
   * `worker-<build id>-1…n`, from the kept copy in `dir`, metrics ports after this build's workers'.
   */
  oldBuilds?: { buildId: string; dir: string; workers: number }[];
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
  // An old build's workers: its own code and build id (never WORKER_BUILD_ID, which names this
  // build), and never made current by their own start.
  const oldEnv = { ...env };
  delete oldEnv.WORKER_BUILD_ID;
  let port = o.workers;
  for (const b of o.oldBuilds ?? []) {
    for (let i = 1; i <= b.workers; i++, port++) {
      const name = `worker-${b.buildId}-${i}`;
      children.push({
        name,
        command: process.execPath,
        args: [...(o.workerNodeOptions ?? workerNodeOptions(o.env)), ...entry(b.dir, 'worker')],
        env: { ...oldEnv, WORKER_BECOME_CURRENT: 'never', WORKER_METRICS_PORT: String(metricsBase === 0 ? 0 : metricsBase + 2 * port) },
        logFile: logFile(name),
      });
    }
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

/** A Temporal connection for the rollout checks, and what they need of the configuration. */
interface Rollout {
  client: import('@temporalio/client').Client;
  close: () => Promise<void>;
  config: ReturnType<typeof import('../lib/config').loadConfig>;
  thisBuild: string;
  say: (line: string) => void;
}

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The command that moves the imports pinned to `from` onto `to` (after a replay check). */
function moveCommand(r: Rollout, from: string, to: string, temporalBin: string): string {
  const { deploymentName: d, address, namespace } = r.config.temporal;
  return `${temporalBin} workflow update-options --address ${address} --namespace ${namespace} --query "TemporalWorkerDeploymentVersion = '${d}:${from}' AND ExecutionStatus = 'Running'" --versioning-override-behavior pinned --versioning-override-deployment-name ${d} --versioning-override-build-id ${to}`;
}

/** The steps of a rollout from `from` to `to` under npm run up, to copy and paste. */
function rolloutSteps(from: string, to: string): string[] {
  return [
    `  To roll out ${to} (docs/deploys.md, "Under npm run up"), in another terminal, in the project folder:`,
    `    bin/data-import replay --build ${to}                # the open histories replay on the new build`,
    `    bin/data-import deploy set-current ${to}            # new imports start on it (or: deploy ramp ${to} 10)`,
    `    bin/data-import deploy drain-status ${from} --wait 3600`,
    `  ${from}'s workers here stop by themselves once it has drained. Back: bin/data-import deploy rollback.`,
  ];
}

/**
 * After this build's workers started: once the build has registered, make it current when the
 * current build has no workers (deploys/runPlan.ts), and say what runs where. Written to
 * `<runDir>/rollout.txt` too, which scripts/up.sh prints with its summary.
 */
async function checkRouting(r: Rollout, o: { runningHere: ReadonlySet<string>; promote: boolean; runDir: string; temporalBin: string }): Promise<void> {
  const { describeDeployment, setCurrentVersion, waitForRouting, waitForVersion, workflowPollers } = await import('../deploys/versions');
  const { deployStatus, POLLER_RECENT_MS } = await import('../deploys/status');
  const { decideRouting, liveWorkers } = await import('../deploys/runPlan');
  const name = r.config.temporal.deploymentName;
  const me = r.thisBuild;
  const lines: string[] = [];
  try {
    await waitForVersion(r.client, name, me, 180_000);
    // A fresh deployment: the worker's own first start makes it current (WORKER_BECOME_CURRENT).
    await waitForRouting(r.client, name, (d) => d.currentBuildId !== null, 20_000).catch(() => undefined);
    const status = await deployStatus(r.client, r.config);
    const pollers = await workflowPollers(r.client, r.config.temporal.taskQueue);
    const live = (id: string) => liveWorkers(pollers, id, { now: Date.now(), recentMs: POLLER_RECENT_MS, hostname: os.hostname(), pidAlive });
    const decision = decideRouting({ status, thisBuild: me, runningHere: o.runningHere, liveElsewhere: (id) => live(id).length, promote: o.promote });
    const current = status.current_build_id;
    const openOn = (id: string | null) => status.builds.find((b) => b.build_id === id)?.open_imports ?? 0;
    switch (decision.action) {
      case 'promote': {
        const d = await describeDeployment(r.client, name);
        await setCurrentVersion(r.client, name, me, { conflictToken: d?.conflictToken, identity: `npm run up (build ${me})` });
        await waitForRouting(r.client, name, (x) => x.currentBuildId === me);
        lines.push(
          `!! Build ${decision.from} was current, but no worker runs it here or anywhere: new imports would have waited for ever.`,
          `!! This build ${me} is now the current build: new imports start on it.${openOn(decision.from) ? '' : ` Nothing was open on ${decision.from}.`}`,
          `   (Same as: bin/data-import deploy set-current ${me}. Back: bin/data-import deploy rollback, once ${decision.from}'s workers run.)`,
        );
        break;
      }
      case 'warn':
        lines.push(
          `!! Build ${decision.from} is current, but no worker runs it: every new import waits. Make this build current:`,
          `!!   bin/data-import deploy set-current ${me}`,
        );
        break;
      case 'none':
        if (decision.why === 'this-current' || decision.why === 'none-current') lines.push(`This build ${me} is current: new imports start on it.`);
        else if (decision.why === 'ramping') {
          lines.push(`Build ${current} is current and ${status.ramping!.build_id} ramps at ${status.ramping!.percentage} % (an operator's ramp: left as it is). This build is ${me}.`);
          lines.push(`  Check: bin/data-import deploy status`);
        } else if (decision.why === 'current-runs-here') {
          lines.push(`Build ${current} is current and ${openOn(current)} import(s) are open on it: its workers run here, from data/builds/${current}/, beside this build ${me}. New imports still start on ${current}.`);
          lines.push(...rolloutSteps(current!, me));
        } else {
          lines.push(`Build ${current} is current and its workers run elsewhere (${live(current!).join(', ')}): new imports start there. This build is ${me}.`);
          lines.push(...rolloutSteps(current!, me));
        }
    }
    // Builds with imports pinned to them that nobody runs: they wait until someone does.
    for (const b of status.builds) {
      if (b.build_id === me || o.runningHere.has(b.build_id) || b.open_imports === 0 || live(b.build_id).length > 0) continue;
      const commit = /^[0-9a-f]{12}$/.test(b.build_id.split('-')[0]!) ? b.build_id.slice(0, 12) : null;
      lines.push(
        `!! ${b.open_imports} import(s) are pinned to build ${b.build_id} and no worker runs it: they wait. It is not kept in data/builds/ (or --old-workers 0). Either:`,
        commit && !b.build_id.includes('-dirty-')
          ? `!!   - run its code: git worktree add ../build-${commit} ${commit} && (cd ../build-${commit} && npm ci && npm run build) && node dist/scripts/release.js keep --dist ../build-${commit}/dist, then restart npm run up`
          : `!!   - run its code: only a kept copy has it (a build id without a commit, or with uncommitted changes)`,
        `!!   - or move them to this build once they replay on it: bin/data-import replay --build ${me} && \\`,
        `!!       ${moveCommand(r, b.build_id, me, o.temporalBin)}`,
      );
    }
  } catch (err) {
    lines.push(`!! Could not check the worker deployment ${name}: ${err instanceof Error ? err.message : String(err)}. See: bin/data-import deploy status`);
  }
  for (const line of lines) r.say(line);
  fs.writeFileSync(path.join(o.runDir, 'rollout.txt'), `${lines.join('\n')}\n`);
}

/**
 * Every 15 s: an old build this run serves because imports were open on it is retired (its
 * workers stopped for good) once it has drained — seen twice in a row, neither current nor
 * ramping and nothing open on it.
 */
function watchDrain(r: Rollout, supervisor: Supervisor, groups: Map<string, string[]>): void {
  const seen = new Map<string, number>();
  const timer = setInterval(() => {
    void (async () => {
      const { deployStatus } = await import('../deploys/status');
      const { isDrained } = await import('../deploys/runPlan');
      const status = await deployStatus(r.client, r.config);
      for (const [buildId, names] of groups) {
        const n = isDrained(status, buildId) ? (seen.get(buildId) ?? 0) + 1 : 0;
        seen.set(buildId, n);
        if (n < 2) continue;
        groups.delete(buildId);
        r.say(`build ${buildId} has drained (not current, nothing open on it): retiring its worker(s) ${names.join(', ')}. Its copy stays in data/builds/${buildId}/ for a rollback (npm run up -- --run-build ${buildId}).`);
        await Promise.all(names.map((x) => supervisor.retire(x)));
      }
      if (groups.size === 0) clearInterval(timer);
    })().catch((err) => r.say(`drain check failed (tried again in 15 s): ${err instanceof Error ? err.message : String(err)}`));
  }, 15_000);
  timer.unref();
}

async function main(): Promise<void> {
  const program = new Command('supervise')
    .description('Run the API and the worker processes, restarting any that exits (exponential backoff 1 s … 30 s, reset after 30 s up); SIGINT/SIGTERM stops them all gracefully.')
    .option('--workers <n>', 'worker processes (0: none, an API host)', (v: string) => (v === '0' ? 0 : positive(64)(v)), 1)
    .option('--api-replicas <m>', 'API processes; replica i listens on PORT + i - 1 (0: none, a worker host)', (v: string) => (v === '0' ? 0 : positive(64)(v)), 1)
    .option('--run-dir <dir>', 'pid files <name>.pid of the running children', 'data/run')
    .option('--log-dir <dir>', 'log files <name>.log of the children, and supervisor.log', 'data/logs')
    .option('--stop-grace <seconds>', 'time between SIGTERM and SIGKILL when stopping', positive(3600), DEFAULT_STOP_GRACE_MS / 1000)
    .option('--rollout', 'look at the worker deployment first: run older kept builds that still have open imports, make this build current when the current one has no workers (docs/deploys.md)')
    .option('--builds-dir <dir>', 'where builds are kept (scripts/release.ts)', 'data/builds')
    .option('--old-workers <n>', 'worker processes per older build with open imports (0: start none, only warn)', (v: string) => (v === '0' ? 0 : positive(64)(v)), 1)
    .option('--run-build <id>', 'also run the workers of this kept build, whatever is open on it (a rollback); repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--no-promote', 'never make this build current by itself: only warn')
    .parse();
  const o = program.opts<{ workers: number; apiReplicas: number; runDir: string; logDir: string; stopGrace: number; rollout?: boolean; buildsDir: string; oldWorkers: number; runBuild: string[]; promote: boolean }>();
  if (o.workers + o.apiReplicas === 0) program.error('error: nothing to run: --workers and --api-replicas are both 0');
  fs.mkdirSync(o.logDir, { recursive: true });
  fs.mkdirSync(o.runDir, { recursive: true });
  const ownLog = path.join(o.logDir, 'supervisor.log');
  const say = (line: string) => {
    const stamped = `[supervisor] ${new Date().toISOString()} ${line}`;
    process.stderr.write(`${stamped}\n`);
    fs.appendFileSync(ownLog, `${stamped}\n`);
  };
  fs.rmSync(path.join(o.runDir, 'rollout.txt'), { force: true });

  // The rollout: which older builds to run beside this one (deploys/runPlan.ts).
  let rollout: Rollout | null = null;
  const oldBuilds: { buildId: string; dir: string; workers: number }[] = [];
  const autoGroups = new Map<string, string[]>();
  if (o.rollout) {
    const { readBuildInfo } = await import('../lib/buildInfo');
    const { keptBuilds } = await import('../deploys/builds');
    const { planOldBuilds } = await import('../deploys/runPlan');
    const thisBuild = readBuildInfo(path.join(__dirname, '..'))?.buildId;
    if (!thisBuild) throw new Error(`--rollout: no build-info.json in ${path.join(__dirname, '..')} (npm run build)`);
    const kept = new Map(keptBuilds(o.buildsDir).map((b) => [b.buildId, b]));
    let status = null;
    try {
      const { loadConfig } = await import('../lib/config');
      const { connectTemporal } = await import('../lib/temporal');
      const { deployStatus } = await import('../deploys/status');
      const config = loadConfig(process.env);
      const { client, connection } = await connectTemporal(config.temporal);
      rollout = { client, close: () => connection.close(), config, thisBuild, say };
      status = await deployStatus(client, config);
    } catch (err) {
      say(`!! could not read the worker deployment (${err instanceof Error ? err.message : String(err)}): no older build started; check with bin/data-import deploy status`);
    }
    const plan = planOldBuilds({ status, thisBuild, kept: new Set(kept.keys()), asked: o.runBuild, oldWorkers: o.oldWorkers });
    if (plan.missing.length) {
      throw new Error(`--run-build ${plan.missing.join(', ')}: not kept in ${o.buildsDir} (kept: ${[...kept.keys()].join(', ') || 'none'})`);
    }
    for (const b of plan.run) {
      const workers = Math.max(1, o.oldWorkers);
      oldBuilds.push({ buildId: b.buildId, dir: kept.get(b.buildId)!.dir, workers });
      const names = Array.from({ length: workers }, (_, i) => `worker-${b.buildId}-${i + 1}`);
      if (b.reason === 'open-imports') autoGroups.set(b.buildId, names);
      say(
        b.reason === 'asked'
          ? `running build ${b.buildId} from ${kept.get(b.buildId)!.dir} as asked (--run-build): ${names.join(', ')}`
          : `build ${b.buildId} still has ${b.openImports} open import(s) pinned to it: running its workers from ${kept.get(b.buildId)!.dir} beside this build ${thisBuild}: ${names.join(', ')}`,
      );
    }
  }

  const supervisor = new Supervisor({
    children: serviceChildren({
      workers: o.workers,
      apiReplicas: o.apiReplicas,
      env: process.env,
      logDir: o.logDir,
      oldBuilds,
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
    void supervisor.stop().then(async () => {
      fs.rmSync(pidFile, { force: true });
      await rollout?.close().catch(() => undefined);
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  supervisor.start();
  if (rollout) {
    // The commands printed are run from the project folder (where npm run up runs).
    const temporalBin = fs.existsSync(path.join(__dirname, '..', '..', '.venv', 'bin', 'temporal')) ? '.venv/bin/temporal' : 'temporal';
    await checkRouting(rollout, { runningHere: new Set(oldBuilds.map((b) => b.buildId)), promote: o.promote, runDir: o.runDir, temporalBin });
    if (autoGroups.size) watchDrain(rollout, supervisor, autoGroups);
  } else {
    fs.writeFileSync(path.join(o.runDir, 'rollout.txt'), '');
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`supervisor failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
