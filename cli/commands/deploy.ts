import { Command, InvalidArgumentError } from 'commander';
import type { Client } from '@temporalio/client';
import type { Config } from '../../lib/config';
import { DeploymentError, DeploymentView, describeDeployment, setCurrentVersion, setRampingVersion, waitForRouting } from '../../deploys/versions';
import { deployStatus, POLLER_RECENT_MS, type DeployStatus } from '../../deploys/status';
import { CliError } from '../errors';
import { print, printErr, withTemporal } from '../context';
import { integerIn, json, table, withExamples } from '../format';

/**
 * `data-import deploy`: the steps of a rollout on the Temporal side (docs/deploys.md) — which
 * builds the worker deployment has and what runs on each, making a build current, ramping a
 * share of new imports to it, rolling back, and watching an old build drain. Each step that
 * changes the routing prints the `temporal worker deployment …` command that does the same.
 */

const STATUS_MEANING: Record<string, string> = {
  CURRENT: 'new imports start here',
  RAMPING: 'a share of new imports starts here',
  DRAINING: 'no new imports; its open ones finish here',
  DRAINED: 'nothing open: its workers can be retired',
  INACTIVE: 'never current: no imports',
  CREATED: 'registered, not used yet',
};

function printStatus(s: DeployStatus): void {
  const ramp = s.ramping ? `; ramping ${s.ramping.build_id} at ${s.ramping.percentage} %` : '';
  print(`Worker deployment ${s.deployment} (namespace ${s.namespace}, task queue ${s.task_queue})`);
  print(`Current build: ${s.current_build_id ?? '(none: new imports wait until a build is made current)'}${ramp}${s.routing_updating ? ' (routing change still propagating)' : ''}`);
  print('');
  print(
    table(
      ['build', 'status', 'workers', 'open imports', 'open workflows', 'created', 'meaning'],
      s.builds.map((b) => [b.build_id, b.status, b.workers, b.open_imports, b.open_workflows, b.created_at?.replace(/\.\d{3}Z$/, 'Z'), STATUS_MEANING[b.status] ?? '']),
      '(no build has registered yet: start a worker)',
    ),
  );
  print('');
  print(`Open imports: ${s.open_imports}${s.unassigned_open_imports ? `, ${s.unassigned_open_imports} not yet taken by any build` : ''}. Workers: processes that polled in the last ${POLLER_RECENT_MS / 60_000} minutes.`);
}

const temporalCommand = (config: Config, rest: string) =>
  `temporal worker deployment ${rest.replace('{D}', `--deployment-name ${config.temporal.deploymentName}`)} --address ${config.temporal.address} --namespace ${config.temporal.namespace}`;

function knownBuild(d: DeploymentView | null, config: Config, buildId: string): DeploymentView {
  if (!d) throw new CliError(`no worker deployment ${config.temporal.deploymentName} on ${config.temporal.address}: no versioned worker has polled task queue ${config.temporal.taskQueue} yet`);
  if (!d.versions.some((v) => v.buildId === buildId)) {
    throw new CliError(`build ${buildId} is not a version of ${d.name} (known: ${d.versions.map((v) => v.buildId).join(', ') || 'none'}): start its workers first`);
  }
  return d;
}

async function temporalStep<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DeploymentError) throw new CliError(err.message);
    throw err;
  }
}

/** Makes `buildId` current and waits until the task queue routes by it; prints what changed. */
async function makeCurrent(client: Client, config: Config, buildId: string, why: string): Promise<void> {
  const name = config.temporal.deploymentName;
  const d = knownBuild(await describeDeployment(client, name), config, buildId);
  if (d.currentBuildId === buildId && !d.ramping) {
    print(`Build ${buildId} is already current in ${name}: nothing to do.`);
    return;
  }
  const previous = d.currentBuildId;
  await temporalStep(async () => {
    // A ramp of another build would keep sending it a share: a new current build ends it.
    if (d.ramping && d.ramping.buildId !== buildId) await setRampingVersion(client, name, null, 0);
    await setCurrentVersion(client, name, buildId);
    await waitForRouting(client, name, (x) => x.currentBuildId === buildId);
  });
  print(`Build ${buildId} is now current in ${name}${previous ? ` (was ${previous})` : ''}${why}.`);
  print(`New imports start on ${buildId}.${previous && previous !== buildId ? ` Imports started on ${previous} stay pinned to it and finish there: keep its workers until \`data-import deploy drain-status ${previous}\` says drained.` : ''}`);
  print(`Same as: ${temporalCommand(config, `set-current-version {D} --build-id ${buildId}`)}`);
}

function percent(v: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !(n >= 0 && n <= 100)) throw new InvalidArgumentError('expected a percentage from 0 to 100.');
  return n;
}

interface DrainRow {
  build_id: string;
  status: string;
  open_imports: number;
  open_workflows: number;
  workers: number;
  drained: boolean;
}

/** A build no longer routed to and with nothing open on it can lose its workers. */
function drainRows(s: DeployStatus, buildId: string | undefined): DrainRow[] {
  const routed = new Set([s.current_build_id, s.ramping?.build_id].filter(Boolean));
  const rows = s.builds
    .filter((b) => (buildId ? b.build_id === buildId : !routed.has(b.build_id)))
    .map((b) => ({
      build_id: b.build_id,
      status: b.status,
      open_imports: b.open_imports,
      open_workflows: b.open_workflows,
      workers: b.workers,
      drained: !routed.has(b.build_id) && b.open_workflows === 0,
    }));
  return rows;
}

export function register(program: Command): void {
  const deploy = program
    .command('deploy')
    .description(
      'Roll out a new build of the workers without stopping imports (docs/deploys.md): imports are pinned to the build they started on, so start the new build\'s workers beside the old ones, then make it current (or ramp a share of new imports to it), watch the old build drain, and retire its workers. Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE and WORKER_DEPLOYMENT_NAME.',
    );
  withExamples(deploy, [
    'data-import deploy status',
    'data-import replay --build 4f2a9c1d0e7b          # before: the open imports replay on the new build',
    'data-import deploy ramp 4f2a9c1d0e7b 10',
    'data-import deploy set-current 4f2a9c1d0e7b',
    'data-import deploy drain-status 9c0e11b2a4d3 --wait 3600',
    'data-import deploy rollback',
  ]);

  withExamples(
    deploy
      .command('status')
      .description('The worker deployment: the current build (and a ramp), every build with its status, its running workers and its open imports and workflows.')
      .option('--json', 'print as JSON')
      .action(async (o: { json?: boolean }) => {
        await withTemporal(async (client, config) => {
          const s = await deployStatus(client, config);
          if (o.json) print(json(s));
          else printStatus(s);
        });
      }),
    ['data-import deploy status', 'data-import deploy status --json'],
  );

  withExamples(
    deploy
      .command('set-current')
      .description('Make <build-id> the current build: every new import starts on it; imports already started stay on the build they started on. The build\'s workers must be running. Ends a ramp of another build.')
      .argument('<build-id>', 'a build of the deployment (see deploy status)')
      .action(async (buildId: string) => {
        await withTemporal((client, config) => makeCurrent(client, config, buildId, ''));
      }),
    ['data-import deploy set-current 4f2a9c1d0e7b'],
  );

  withExamples(
    deploy
      .command('ramp')
      .description('Send <percent> % of new imports to <build-id> (chosen by a hash of the workflow id), the rest to the current build; --stop ends the ramp. Make the build current once it looks right (deploy set-current).')
      .argument('[build-id]', 'the build to ramp (its workers must be running)')
      .argument('[percent]', 'share of new imports, 0-100', percent)
      .option('--stop', 'end the ramp: every new import starts on the current build')
      .action(async (buildId: string | undefined, pct: number | undefined, o: { stop?: boolean }) => {
        await withTemporal(async (client, config) => {
          const name = config.temporal.deploymentName;
          if (o.stop) {
            if (buildId !== undefined) throw new CliError('--stop takes no build or percentage');
            const d = await describeDeployment(client, name);
            if (!d?.ramping) return print(`No ramp in ${name}: nothing to stop.`);
            await temporalStep(async () => {
              await setRampingVersion(client, name, null, 0);
              await waitForRouting(client, name, (x) => x.ramping === null);
            });
            print(`Ramp of ${d.ramping.buildId} ended: every new import starts on ${d.currentBuildId ?? '(no current build)'}.`);
            return print(`Same as: ${temporalCommand(config, 'set-ramping-version {D} --delete')}`);
          }
          if (buildId === undefined || pct === undefined) throw new CliError('ramp needs <build-id> and <percent> (or --stop)');
          const d = knownBuild(await describeDeployment(client, name), config, buildId);
          if (d.currentBuildId === buildId) throw new CliError(`build ${buildId} is already current: a ramp sends a share to another build`);
          if (!d.currentBuildId) throw new CliError(`${name} has no current build to ramp from: make one current (deploy set-current)`);
          await temporalStep(async () => {
            await setRampingVersion(client, name, buildId, pct);
            await waitForRouting(client, name, (x) => x.ramping?.buildId === buildId && x.ramping.percentage === pct);
          });
          print(`${pct} % of new imports now start on ${buildId}, the rest on ${d.currentBuildId}. Imports stay on the build they started on.`);
          print(`Same as: ${temporalCommand(config, `set-ramping-version {D} --build-id ${buildId} --percentage ${pct}`)}`);
        });
      }),
    ['data-import deploy ramp 4f2a9c1d0e7b 10', 'data-import deploy ramp 4f2a9c1d0e7b 50', 'data-import deploy ramp --stop'],
  );

  withExamples(
    deploy
      .command('rollback')
      .description(
        'Make the previous build current again (or --to <build-id>), ending any ramp: new imports start on it. Imports that started on the build rolled back from stay pinned to it and finish there unless moved (docs/deploys.md); its workers must keep running until it drains. The previous build\'s workers must be running.',
      )
      .option('--to <build-id>', 'the build to make current (default: the one that was current before the current one)')
      .action(async (o: { to?: string }) => {
        await withTemporal(async (client, config) => {
          const name = config.temporal.deploymentName;
          const d = await describeDeployment(client, name);
          if (!d?.currentBuildId) throw new CliError(`${name} has no current build to roll back from`);
          let target = o.to;
          if (!target) {
            // The build that was current last, other than the current one.
            const before = d.versions
              .filter((v) => v.buildId !== d.currentBuildId && (v.lastCurrentAt || v.currentSince || v.deactivatedAt))
              .sort((a, b) => (b.lastCurrentAt ?? b.deactivatedAt ?? new Date(0)).getTime() - (a.lastCurrentAt ?? a.deactivatedAt ?? new Date(0)).getTime())[0];
            if (!before) throw new CliError(`no build of ${name} was current before ${d.currentBuildId}: name one with --to`);
            target = before.buildId;
          }
          if (target === d.currentBuildId && !d.ramping) throw new CliError(`build ${target} is the current build already`);
          await makeCurrent(client, config, target, ` — rolled back from ${d.currentBuildId}`);
        });
      }),
    ['data-import deploy rollback', 'data-import deploy rollback --to 9c0e11b2a4d3'],
  );

  withExamples(
    deploy
      .command('drain-status')
      .description(
        'Whether an old build still has open imports (or other workflows) pinned to it. Drained: neither current nor ramping, nothing open — its workers can be retired. Without a build: every build that is neither current nor ramping. Exits 0 when all shown are drained, 1 otherwise (after --wait).',
      )
      .argument('[build-id]', 'one build (default: every build no longer routed to)')
      .option('--wait <seconds>', 'wait up to this long for them to drain (0-86400)', integerIn(0, 86_400), 0)
      .option('--json', 'print as JSON')
      .action(async (buildId: string | undefined, o: { wait: number; json?: boolean }) => {
        await withTemporal(async (client, config) => {
          const deadline = Date.now() + o.wait * 1000;
          let rows: DrainRow[];
          for (;;) {
            const s = await deployStatus(client, config);
            if (buildId && !s.builds.some((b) => b.build_id === buildId)) throw new CliError(`build ${buildId} is not a version of ${s.deployment}`);
            rows = drainRows(s, buildId);
            if (rows.every((r) => r.drained) || Date.now() >= deadline) break;
            if (!o.json) printErr(`waiting: ${rows.filter((r) => !r.drained).map((r) => `${r.build_id} ${r.open_workflows} open`).join(', ')}`);
            await new Promise((r) => setTimeout(r, 2000));
          }
          if (o.json) print(json({ drained: rows.every((r) => r.drained), builds: rows }));
          else print(table(['build', 'status', 'open imports', 'open workflows', 'workers', 'drained'], rows.map((r) => [r.build_id, r.status, r.open_imports, r.open_workflows, r.workers, r.drained]), '(no build is waiting to drain)'));
          const left = rows.filter((r) => !r.drained);
          if (left.length) throw new CliError(`not drained: ${left.map((r) => r.build_id).join(', ')}`);
        });
      }),
    ['data-import deploy drain-status', 'data-import deploy drain-status 9c0e11b2a4d3 --wait 600', 'data-import deploy drain-status --json'],
  );
}
