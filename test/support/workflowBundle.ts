import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { runId, alive } from './env';

/**
 * The workflow bundle of a test run: built once from workflows/ by the global setup and given to
 * every worker the integration tests start (in-process ones through test/support/stack.ts, the
 * crash and sender processes they spawn through the environment). A worker given no bundle bundles
 * the same source itself with webpack: ~2.5 s of CPU per worker on the 2-core machines, paid by
 * some 40 workers a run. The source cannot change during a run, so the code the workers run is the
 * same either way.
 */
const ENV = 'DI_TEST_WORKFLOW_BUNDLE';
const DIR = path.resolve(__dirname, '../../data/test');
const NAME = /^workflow-bundle-(\d+)\.js$/;

/** The run's bundle (undefined outside a jest run with the global setup: the worker bundles from source). */
export function testWorkflowBundle(): string | undefined {
  const file = process.env[ENV];
  return file && fs.existsSync(file) ? file : undefined;
}


/** Builds the run's bundle and exports its path to the test workers; drops those of runs that are gone. */
export async function prepareTestWorkflowBundle(): Promise<void> {
  fs.mkdirSync(DIR, { recursive: true });
  for (const f of fs.readdirSync(DIR)) {
    const m = NAME.exec(f);
    if (m && !alive(Number(m[1]))) fs.rmSync(path.join(DIR, f), { force: true });
  }
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  const file = path.join(DIR, `workflow-bundle-${runId()}.js`);
  fs.writeFileSync(file, code);
  process.env[ENV] = file;
}

/** Removes the run's bundle (global teardown). */
export function removeTestWorkflowBundle(): void {
  fs.rmSync(path.join(DIR, `workflow-bundle-${runId()}.js`), { force: true });
}
