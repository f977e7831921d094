import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { readBuildInfo } from '../../lib/buildInfo';
import { buildsDir } from '../../deploys/builds';
import type { ReplayProgress, WorkflowCode } from '../../deploys/replay';
import { WORKFLOW_TYPES } from '../../deploys/versions';
import { CliError } from '../errors';
import { print, printErr, withTemporal } from '../context';
import { integerIn, json, table, withExamples } from '../format';

/**
 * `data-import replay`: replay before deploy (docs/deploys.md). Pulls the histories of the open
 * and recently closed workflows of the task queue from Temporal and replays them against the
 * workflow code of the build about to be deployed; prints every execution the code does not
 * reproduce and exits 1 if there is any.
 */

interface Code {
  code: WorkflowCode;
  buildId: string | null;
  where: string;
}

/** The workflow code to replay against, from the options; default: this CLI's own build. */
export function resolveCode(o: { build?: string; bundle?: string }): Code {
  const rel = (p: string) => path.relative(process.cwd(), p) || '.';
  if (o.bundle) {
    if (!fs.existsSync(o.bundle)) throw new CliError(`no workflow bundle at ${o.bundle}`);
    return { code: { bundlePath: path.resolve(o.bundle) }, buildId: readBuildInfo(path.dirname(path.resolve(o.bundle)))?.buildId ?? null, where: rel(o.bundle) };
  }
  if (o.build) {
    // A build folder (dist/, data/builds/<id>/), or the id of a build kept under data/builds/ (by npm run up: deploys/builds.ts).
    const dir = fs.existsSync(path.join(o.build, 'workflow-bundle.js')) ? path.resolve(o.build) : path.join(buildsDir(), o.build);
    const bundle = path.join(dir, 'workflow-bundle.js');
    if (!fs.existsSync(bundle)) throw new CliError(`no build ${o.build}: neither ${o.build}/workflow-bundle.js nor ${rel(bundle)} exists (npm run build; npm run up keeps every build it runs in data/builds/, and node dist/scripts/release.js keep keeps one)`);
    return { code: { bundlePath: bundle }, buildId: readBuildInfo(dir)?.buildId ?? null, where: rel(bundle) };
  }
  // This CLI's own build: compiled, the bundle beside it; from the sources, the sources' workflows.
  const own = path.join(__dirname, '..', '..');
  const bundle = path.join(own, 'workflow-bundle.js');
  if (fs.existsSync(bundle) && readBuildInfo(own)) return { code: { bundlePath: bundle }, buildId: readBuildInfo(own)!.buildId, where: rel(bundle) };
  const workflows = path.join(own, 'workflows');
  return { code: { workflowsPath: require.resolve(workflows) }, buildId: null, where: `${rel(workflows)} (sources, bundled now)` };
}

function progressReporter(kind: 'auto' | 'plain' | 'none'): { update(p: ReplayProgress): void; stop(): void } {
  if (kind === 'none') return { update: () => undefined, stop: () => undefined };
  if (kind === 'auto' && process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: 'replay [{bar}] {value}/{total} replayed · {fetched} fetched', stream: process.stderr, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    let fetched = 0;
    return {
      update(p) {
        if (!started) {
          bar.start(p.total, 0, { fetched: 0 });
          started = true;
        }
        if (p.phase === 'fetch') fetched = p.done;
        else bar.update(p.done, { fetched });
        bar.update({ fetched });
      },
      stop: () => started && bar.stop(),
    };
  }
  // Plain: a line every tenth (and the last), for logs and CI.
  let lastTenth = -1;
  return {
    update(p) {
      if (p.phase !== 'replay') return;
      const tenth = Math.floor((p.done / Math.max(1, p.total)) * 10);
      if (tenth !== lastTenth || p.done === p.total) {
        lastTenth = tenth;
        printErr(`replay: ${p.done}/${p.total} replayed`);
      }
    },
    stop: () => undefined,
  };
}

/** The SDK's replay worker logs every failing task on stderr; the command reports them itself (unless a runtime exists). */
async function quietRuntime(): Promise<void> {
  const { Runtime, DefaultLogger } = await import('@temporalio/worker');
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* installed already (tests, or a second command in the same process) */
  }
}

interface ReplayOptions {
  build?: string;
  bundle?: string;
  since: number;
  limit: number;
  types: string[];
  json?: boolean;
  progress: 'auto' | 'plain' | 'none';
}

export function register(program: Command): void {
  withExamples(
    program
      .command('replay')
      .description(
        'Replay before deploy: pull the histories of the open and recently closed workflows of TEMPORAL_TASK_QUEUE from Temporal (by visibility query, newest first, at most --limit) and replay them against the workflow code of the build about to be deployed. Prints each execution the code does not reproduce (non-deterministic, or failing to replay) and exits 1 if there is any, 0 when all replay. Default code: this CLI\'s own build (dist/workflow-bundle.js after npm run build).',
      )
      .option('--build <id-or-dir>', 'replay against this build: a folder holding workflow-bundle.js (dist/), or a build id kept under data/builds/')
      .option('--bundle <file>', 'replay against this workflow bundle file')
      .option('--since <hours>', 'closed workflows count when they closed within this many hours (0-2160); open ones always', integerIn(0, 2160), 72)
      .option('--limit <n>', 'replay at most this many executions, newest first (1-100000)', integerIn(1, 100_000), 1000)
      .option(
        '--types <list>',
        `comma-separated workflow types (default: ${WORKFLOW_TYPES.join(',')})`,
        (v: string) => {
          const list = v.split(',').map((x) => x.trim()).filter(Boolean);
          const bad = list.filter((t) => !(WORKFLOW_TYPES as readonly string[]).includes(t));
          if (bad.length || list.length === 0) throw new InvalidArgumentError(`expected some of ${WORKFLOW_TYPES.join(', ')}.`);
          return list;
        },
        [...WORKFLOW_TYPES],
      )
      .addOption(new Option('--progress <kind>', 'progress on stderr: auto (a bar on a terminal, else a line per tenth), plain, none').choices(['auto', 'plain', 'none']).default('auto'))
      .option('--json', 'print every replayed execution and the totals as JSON')
      .action(async (o: ReplayOptions) => {
        if (o.build && o.bundle) throw new CliError('give --build or --bundle, not both');
        const target = resolveCode(o);
        // The worker SDK (its native runtime) only for this command, not for every CLI start.
        const { replayExecutions, selectExecutions } = await import('../../deploys/replay');
        await withTemporal(async (client, config) => {
          const sel = await selectExecutions(client, { taskQueue: config.temporal.taskQueue, types: o.types, sinceHours: o.since, limit: o.limit });
          if (!o.json) {
            printErr(
              `replay: ${sel.executions.length} execution(s) of ${sel.matched} matching (open, or closed in the last ${o.since} h) on task queue ${config.temporal.taskQueue}, against ${target.buildId ? `build ${target.buildId} ` : ''}${target.where}`,
            );
          }
          await quietRuntime();
          const progress = progressReporter(o.json ? 'none' : o.progress);
          let results;
          try {
            results = await replayExecutions(client, sel.executions, target.code, { onProgress: (p) => progress.update(p) });
          } finally {
            progress.stop();
          }
          const bad = results.filter((r) => r.outcome !== 'ok');
          const totals = {
            replayed: results.length,
            ok: results.length - bad.length,
            non_deterministic: bad.filter((r) => r.outcome === 'non_deterministic').length,
            failed: bad.filter((r) => r.outcome === 'failed').length,
            not_replayed: sel.matched - results.length,
          };
          if (o.json) {
            print(
              json({
                build_id: target.buildId,
                code: target.where,
                query: sel.query,
                ...totals,
                executions: results.map((r) => ({ workflow_id: r.workflowId, run_id: r.runId, type: r.type, status: r.status, build_id: r.buildId, behavior: r.behavior, outcome: r.outcome, error: r.error })),
              }),
            );
          } else {
            if (bad.length) {
              print(
                table(
                  ['outcome', 'workflow id', 'run id', 'status', 'on build', 'error'],
                  bad.map((r) => [r.outcome === 'non_deterministic' ? 'NON-DETERMINISTIC' : 'FAILED', r.workflowId, r.runId, r.status, r.buildId ? `${r.buildId} (${r.behavior ?? '?'})` : '-', r.error]),
                ),
              );
              print('');
            }
            print(
              `${totals.replayed} replayed against ${target.buildId ? `build ${target.buildId}` : target.where}: ${totals.ok} ok, ${totals.non_deterministic} non-deterministic, ${totals.failed} failed${totals.not_replayed > 0 ? `; ${totals.not_replayed} more matched (raise --limit)` : ''}`,
            );
          }
          if (bad.length) throw new CliError(`${bad.length} execution(s) do not replay on ${target.buildId ? `build ${target.buildId}` : target.where}: do not deploy it as is (docs/deploys.md "When the replay fails")`);
        });
      }),
    ['data-import replay', 'data-import replay --build 4f2a9c1d0e7b', 'data-import replay --build dist --since 24 --limit 5000 --progress plain', 'data-import replay --types accountImport --json > replay.json'],
  );
}
