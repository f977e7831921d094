import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { eventually, startStack, type Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { runCli } from '../unit/cli/runCli';
import { findProcess } from '../../imports/store';

/**
 * `data-import replay` on the real Temporal server (docs/deploys.md "Replay before deploy"):
 * histories of closed and open imports pulled from the server replay cleanly against the real
 * workflow code, and a deliberately non-deterministic change — a copy of the workflows in which
 * the import's recording steps became regular activities instead of local ones — is caught,
 * each affected workflow named, and the command exits 1.
 */

const ROOT = path.join(__dirname, '..', '..');

/**
 * A copy of workflows/ under data/ (so the bundler finds node_modules), its imports of the rest of
 * the repository pointed back at the originals, with `edit` applied to accountImport.ts.
 */
async function bundleModifiedCopy(dir: string, edit: (source: string) => string): Promise<string> {
  const copy = path.join(dir, 'workflows');
  fs.mkdirSync(copy, { recursive: true });
  for (const f of fs.readdirSync(path.join(ROOT, 'workflows'))) {
    let text = fs.readFileSync(path.join(ROOT, 'workflows', f), 'utf8').replace(/from '\.\.\//g, `from '${ROOT}/`);
    if (f === 'accountImport.ts') {
      const edited = edit(text);
      if (edited === text) throw new Error('the edit changed nothing: the workflow source moved on, update the test');
      text = edited;
    }
    fs.writeFileSync(path.join(copy, f), text);
  }
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(copy, 'index.ts'), logger: undefined });
  const bundle = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundle, code);
  return bundle;
}

describe('data-import replay against the histories on the server', () => {
  let s: Stack;
  let env: Record<string, string>;
  let dir: string;
  const closed: string[] = [];
  let open: string;

  beforeAll(async () => {
    s = await startStack();
    env = {
      APP_ENV: 'test',
      DATABASE_URL: s.t.url,
      TEMPORAL_ADDRESS: s.config.temporal.address,
      TEMPORAL_NAMESPACE: s.config.temporal.namespace,
      TEMPORAL_TASK_QUEUE: s.taskQueue,
    };
    dir = path.join(ROOT, 'data', 'test', `replay-copy-${s.id}`);
    // Two imports run to the end, one waits for its window an hour ahead (open, one timer so far).
    for (const name of ['REPLAY-1', 'REPLAY-2']) {
      const ext = s.ext(name);
      expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
      closed.push(`account-import:DEMO_ENERGY:${ext}`);
    }
    open = s.ext('REPLAY-LATER');
    const start = new Date(Date.now() + 3_600_000).toISOString();
    expect((await s.request().post('/v2/data-import/accounts/').send({ payload: uniqueAccount(open), task_params: { schedule_window_start: start } })).status).toBe(201);
    for (const id of closed) await s.client.workflow.getHandle(id).result();
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', open))?.workflowRunId);
    // The open one has taken its first task (its timer is in the history).
    await eventually(async () => (await s.client.workflow.getHandle(`account-import:DEMO_ENERGY:${open}`).fetchHistory()).events?.some((e) => e.timerStartedEventAttributes));
  }, 120_000);

  afterAll(async () => {
    await s.client.workflow.getHandle(`account-import:DEMO_ENERGY:${open}`).terminate('test done').catch(() => undefined);
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('replays every open and recently closed import against the real code: exit 0', async () => {
    const r = await runCli(['replay', '--types', 'accountImport', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ replayed: 3, ok: 3, non_deterministic: 0, failed: 0, not_replayed: 0 });
    expect(out.executions.map((e: { workflow_id: string }) => e.workflow_id).sort()).toEqual([...closed, `account-import:DEMO_ENERGY:${open}`].sort());
    for (const e of out.executions) expect(e).toMatchObject({ build_id: s.buildId, behavior: 'PINNED', outcome: 'ok' });
  }, 120_000);

  it('finds a non-deterministic change in a copy of the workflow, names each affected import and exits 1', async () => {
    // The recording steps as regular activities: the histories hold local-activity markers there.
    const bundle = await bundleModifiedCopy(dir, (src) =>
      src.replace(/const recorder = proxyLocalActivities<Activities>\(\{\n([\s\S]*?)  localRetryThreshold: '2s',\n\}\);/, (_m, body: string) => `const recorder = proxyActivities<Activities>({\n${body}});`),
    );
    const r = await runCli(['replay', '--bundle', bundle, '--progress', 'plain'], env);
    expect(r.code).toBe(1);
    for (const id of closed) expect(r.stdout).toMatch(new RegExp(`NON-DETERMINISTIC\\s+${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s`));
    // The open import has only waited so far, which the change does not touch: it still replays.
    expect(r.stdout).not.toContain(open);
    expect(r.stdout).toMatch(/3 replayed against .*: 1 ok, 2 non-deterministic, 0 failed/);
    expect(r.stderr).toContain('replay: 3/3 replayed');
    expect(r.stderr).toContain('2 execution(s) do not replay');
  }, 180_000);

  it('bounds the selection: --limit 1 replays the newest and says how many more matched', async () => {
    const r = await runCli(['replay', '--types', 'accountImport', '--limit', '1', '--progress', 'none'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1 replayed against .*: 1 ok, 0 non-deterministic, 0 failed; 2 more matched \(raise --limit\)/m);
  }, 120_000);
});
