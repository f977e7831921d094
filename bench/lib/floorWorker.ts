/**
 * The worker of bench/floor.ts: the service's own workflow bundle and worker options
 * (worker/createWorker.ts), with import steps that do no work at all — each answers what the
 * real step answers on the happy path of a typical import, at once, without PostgreSQL or NATS.
 * What this process then spends per import is what the Temporal SDK alone costs the worker.
 *   node --import tsx bench/lib/floorWorker.ts <temporal address> <task queue>
 * Tells its parent over IPC when it is running ('ready') and when an import's last step ran (its id).
 */
import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { createWorker, type WorkerActivities } from '../../worker/createWorker';
import type { ImportRef } from '../../activities/imports/context';
import { Client, Connection } from '@temporalio/client';
import { becomeCurrentIfNone } from '../../deploys/versions';

async function main(): Promise<void> {
  const [address, taskQueue] = process.argv.slice(2);
  if (!address || !taskQueue) throw new Error('usage: floorWorker.ts <temporal address> <task queue>');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const done = (ref: ImportRef) => process.send?.(ref.importProcessId);
  // Only the three steps of a typical import's happy path ('lean-import-steps'); any other step
  // the workflow asked for would fail the run, and the driver would wait for it in vain.
  const steps = {
    beginImport: async () => ({ outcome: 'ok' as const }),
    createAccount: async (ref: ImportRef) => ({ accountNumber: `A-${ref.importProcessId.slice(0, 8).toUpperCase()}` }),
    beginPostImport: async (ref: ImportRef) => {
      done(ref);
      return { queued: 0, skipped: 0, finished: 'completed' as const };
    },
  };
  const bundle = path.join(__dirname, '..', '..', 'dist', 'workflow-bundle.js');
  if (!fs.existsSync(bundle)) throw new Error('run `npm run build` first (dist/workflow-bundle.js)');
  const native = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    // The workflow calls only these three; the cast stands for the rest of the worker's activities.
    activities: steps as unknown as WorkerActivities,
    workflowBundlePath: bundle,
    // Versioned like the service's workers: its own deployment (the task queue), made current.
    version: { deploymentName: taskQueue, buildId: 'floor' },
  });
  process.on('SIGTERM', () => worker.getState() === 'RUNNING' && worker.shutdown());
  const running = worker.run();
  const connection = await Connection.connect({ address });
  await becomeCurrentIfNone(new Client({ connection }), taskQueue, 'floor');
  await connection.close();
  process.send?.('ready');
  await running;
  // The IPC channel would keep the process alive after its worker stopped.
  process.disconnect?.();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
