/**
 * How many trivial workflows per second the local Temporal dev server completes on this machine
 * (no activities, no database): the ceiling any import throughput on this stack runs into.
 *   npx tsx bench/temporalBaseline.ts
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { startTemporalDevServer, writeResult } from './lib/stack';

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const { temporal, temporalPort } = await startTemporalDevServer();
  const address = `127.0.0.1:${temporalPort}`;
  try {
    const client = new Client({ connection: await Connection.connect({ address }) });
    const worker = await Worker.create({
      connection: await NativeConnection.connect({ address }),
      taskQueue: 'baseline',
      workflowsPath: path.join(__dirname, 'lib', 'noopWorkflow.ts'),
      activities: { step: async (n: number) => n + 1 },
    });
    const rows: { workflow: string; inFlight: number; workflows: number; perSecond: number }[] = [];
    await worker.runUntil(async () => {
      for (const [workflow, inFlight] of [['noop', 1], ['noop', 8], ['noop', 32], ['fourLocalActivities', 32]] as const) {
        const n = inFlight * 10;
        let next = 0;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next < n) {
              const i = next++;
              await client.workflow.execute(workflow, { taskQueue: 'baseline', workflowId: `${workflow}-${inFlight}-${i}-${Date.now()}` });
            }
          }),
        );
        rows.push({ workflow, inFlight, workflows: n, perSecond: +(n / ((performance.now() - t0) / 1000)).toFixed(1) });
      }
    });
    console.table(rows);
    console.log(`written ${writeResult('temporal-baseline', { rows })}`);
  } finally {
    temporal.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
