/**
 * A worker process that dies (SIGKILL, no cleanup) inside the create activity: after the
 * transaction committed (CRASH_AT=after-commit) or a few milliseconds into it (CRASH_AT=during).
 * Run with tsx by test/integration/importCrash.test.ts and customerEmails.test.ts through
 * test/support/crashWorkerProcess.ts: with CRASH_WORKER_HOLD=1 it loads its modules (the slow part
 * of its start, seconds under tsx) and prints `loaded`, then waits for `go` on stdin before it
 * touches anything, so a test can start it ahead while other tests run; it prints `ready` once it polls.
 */
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import pino from 'pino';
import { createDb } from '../../db/knex';
import { ReferenceDataCache } from '../../account/referenceDataCache';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { createWorker, createWorkerActivities, WorkerActivities } from '../../worker/createWorker';
import type { ImportRef } from '../../activities/imports';
import { createMailer } from '../../emails/mailer';
import { loadConfig } from '../../lib/config';
import { Client, Connection } from '@temporalio/client';
import { becomeCurrentIfNone } from '../../deploys/versions';
import { testWorkflowBundle } from './workflowBundle';

/** Prints `loaded` and waits for `go` on stdin; exits when stdin ends first (the test is gone). */
function holdUntilGo(): Promise<void> {
  process.stdout.write('loaded\n');
  return new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('go')) resolve();
    });
    process.stdin.on('end', () => process.exit(0));
  });
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = process.env;
  if (env.CRASH_WORKER_HOLD === '1') await holdUntilGo();
  const db = createDb(env.DATABASE_URL!, 4);
  const cache = new ReferenceDataCache(db);
  await cache.start();
  const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS! });
  const real = createWorkerActivities({
    db,
    validator: databaseValidator({ db, cache }),
    subjectPrefix: env.SUBJECT_PREFIX!,
    log: pino({ level: 'silent' }),
    mail: createMailer(loadConfig({ SMTP_URL: env.SMTP_URL, SMTP_REQUIRE_TLS: env.SMTP_REQUIRE_TLS, EMAIL_TEMPLATES_DIR: env.EMAIL_TEMPLATES_DIR }).email),
  });
  // The kill point is placed by wrapping the real activities, passed to the worker like
  // production's. CRASH_AT=never: an ordinary worker, for tests that kill it from outside.
  const activities: WorkerActivities =
    env.CRASH_AT === 'never'
      ? real
      : {
          ...real,
          createAccount: async (ref: ImportRef) => {
            if (env.CRASH_AT === 'during') {
              setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3);
              return real.createAccount(ref);
            }
            await real.createAccount(ref);
            process.kill(process.pid, 'SIGKILL');
            return new Promise<never>(() => undefined);
          },
        };
  // The stack's deployment and build: an import this process starts is pinned to that version,
  // and the stack's own worker (same version) takes it over once this one is killed.
  const worker = await createWorker({ connection, namespace: 'default', taskQueue: env.TASK_QUEUE!, workflowBundlePath: testWorkflowBundle(), activities, version: { deploymentName: env.TASK_QUEUE!, buildId: env.BUILD_ID! } });
  const running = worker.run();
  // Like a worker's first start: when no version is current yet, this one becomes current.
  const client = new Client({ connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS! }) });
  await becomeCurrentIfNone(client, env.TASK_QUEUE!, env.BUILD_ID!);
  process.stdout.write('ready\n');
  await running;
}

main().catch((err) => {
  process.stderr.write(String(err));
  process.exit(1);
});
