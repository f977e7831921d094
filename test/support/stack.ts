import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import type Koa from 'koa';
import { jetstreamManager } from '@nats-io/jetstream';
import { loadConfig, Config } from '../../lib/config';
import { createMetrics } from '../../lib/metrics';
import { connectNats, ensureStream, NatsConnection } from '../../events/nats';
import { OutboxRelay } from '../../events/relay';
import { ReferenceDataCache } from '../../account/referenceDataCache';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { natsCheck, temporalCheck } from '../../lib/readiness';
import { postgresCheck } from '../../db/knex';
import { createWorker, createWorkerActivities, WorkerActivities } from '../../worker/createWorker';
import { createSupplier } from '../../suppliers/store';
import { createMailer } from '../../emails/mailer';
import { becomeCurrentIfNone } from '../../deploys/versions';
import { createTestDatabase, TestDatabase } from './db';
import { TEST_NATS_URL, TEST_TEMPORAL_ADDRESS } from './env';
import { testAuth } from './auth';
import { testWorkflowBundle } from './workflowBundle';
import request from 'supertest';

export interface Stack {
  /** Unique per stack: put it in external account numbers, since workflow ids are global to the Temporal server. */
  id: string;
  ext(name: string): string;
  t: TestDatabase;
  config: Config;
  /** The production app (authentication required) over the stack's dependencies. */
  app: Koa;
  /** supertest over `app`, authenticated as an organisation granted DEMO_ENERGY. */
  request(): request.Agent;
  /** The API key of that organisation (for clients that obtain their own tokens: the migrate CLI). */
  apiKey: string;
  /** Who `request()` calls as: `<organisation>/<key id>` (as recorded in requested_by). */
  caller: string;
  /** The `Authorization` header of a fresh organisation granted exactly these suppliers (unknown ones included). */
  authHeader(...suppliers: string[]): Promise<{ Authorization: string }>;
  /** As authHeader, with the key's id (to change its permissions) and the key itself too. */
  authKey(...suppliers: string[]): Promise<{ keyId: string; apiKey: string; header: { Authorization: string } }>;
  nc: NatsConnection;
  client: Client;
  connection: Connection;
  worker?: Worker;
  workerRun?: Promise<void>;
  relay?: OutboxRelay;
  cache: ReferenceDataCache;
  subjectPrefix: string;
  stream: string;
  taskQueue: string;
  /** The build id the stack's workers register (crash workers it spawns must register the same). */
  buildId: string;
  stop(): Promise<void>;
  /** The dependencies the stack's app was built from. */
  deps: AppDeps;
  /** The same app built with another config. */
  appWith(config: Config): Koa;
  /**
   * Starts a worker over the real activities, or over what `activities` makes of them (a test's
   * kill or pause point). Like a production worker it registers its version (`buildId`, default
   * the stack's) in the stack's worker deployment and, when no version is current yet, makes it
   * current (waiting for that, so the first import does not wait for it).
   */
  startWorker(opts?: { activities?: (real: WorkerActivities) => WorkerActivities; buildId?: string }): Promise<void>;
  stopWorker(): Promise<void>;
}

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * The whole service in-process against the real servers, isolated per test file: a fresh
 * database, a unique subject prefix and stream, a unique task queue on the test Temporal server.
 */
export async function startStack(opts: { worker?: boolean; relay?: boolean; env?: Record<string, string>; buildId?: string } = {}): Promise<Stack> {
  const id = crypto.randomBytes(4).toString('hex');
  const subjectPrefix = `t${id}`;
  const stream = `T_${id}`;
  const taskQueue = `test-${id}`;
  const t = await createTestDatabase();
  const config = loadConfig({
    APP_ENV: 'test',
    // Each stack its own key: there is no built-in one (lib/config.ts requireApiSettings).
    AUTH_SIGNING_KEY: crypto.randomBytes(32).toString('base64url'),
    DATABASE_URL: t.url,
    NATS_URL: TEST_NATS_URL,
    TEMPORAL_ADDRESS: TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: taskQueue,
    EVENTS_SUBJECT_PREFIX: subjectPrefix,
    EVENTS_STREAM: stream,
    EVENTS_MAX_AGE_MS: String(60 * 60 * 1000),
    EVENTS_DUPLICATE_WINDOW_MS: String(10 * 60 * 1000),
    OUTBOX_POLL_INTERVAL_MS: '50',
    // The tests' SMTP sinks listen on loopback without TLS (test/support/smtpSink.ts).
    SMTP_REQUIRE_TLS: 'false',
    ...opts.env,
  });
  await createSupplier(t.db, 'DEMO_ENERGY', { status: 'Ongoing', marketParticipantId: 'DEMO' });
  const nc = await connectNats(config.nats, `test-${id}`);
  await ensureStream(nc, config.nats);
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const cache = new ReferenceDataCache(t.db);
  await cache.start();
  const metrics = createMetrics('test');
  const auth = testAuth(t.db, config);
  const deps: AppDeps = {
    config,
    db: t.db,
    log: silentLog,
    metrics,
    temporal: client,
    referenceData: cache,
    readiness: { postgres: postgresCheck(t.db), nats: natsCheck(nc), temporal: temporalCheck(connection) },
    authStore: auth.store,
  };
  const app = createApp(deps);
  const { apiKey, header: defaultAuth, organisation, keyId } = await auth.issue('DEMO_ENERGY');

  const stack: Stack = {
    deps,
    appWith: (cfg) => createApp({ ...deps, config: cfg }),
    request: () => request.agent(app.callback()).set(defaultAuth),
    apiKey,
    caller: `${organisation}/${keyId}`,
    authHeader: async (...suppliers) => (await auth.issue(...suppliers)).header,
    authKey: async (...suppliers) => auth.issue(...suppliers),
    id,
    ext: (name: string) => `${name}-${id}`,
    t,
    config,
    app,
    nc,
    client,
    connection,
    cache,
    subjectPrefix,
    stream,
    taskQueue,
    buildId: opts.buildId ?? 'test',
    async startWorker(wopts = {}) {
      const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
      const mail = createMailer(config.email);
      const real = createWorkerActivities({ db: t.db, validator: databaseValidator({ db: t.db, cache }), subjectPrefix, log: silentLog, mail });
      stack.worker = await createWorker({
        connection: nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue,
        workflowBundlePath: testWorkflowBundle(),
        activities: wopts.activities ? wopts.activities(real) : real,
        version: { deploymentName: config.temporal.deploymentName, buildId: wopts.buildId ?? stack.buildId },
      });
      const w = stack.worker;
      stack.workerRun = w.run().finally(() => {
        mail.transport.close();
        return nativeConnection.close();
      });
      await becomeCurrentIfNone(client, config.temporal.deploymentName, wopts.buildId ?? stack.buildId);
    },
    async stopWorker() {
      if (stack.worker && stack.worker.getState() === 'RUNNING') stack.worker.shutdown();
      await stack.workerRun;
      stack.worker = undefined;
    },
    async stop() {
      await stack.stopWorker();
      await stack.relay?.stop();
      await cache.stop();
      const jsm = await jetstreamManager(nc).catch(() => undefined);
      await jsm?.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await connection.close();
      await t.drop();
    },
  };
  if (opts.worker !== false) await stack.startWorker();
  if (opts.relay !== false) {
    stack.relay = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc, log: silentLog, batchSize: 200, pollIntervalMs: 50 });
    stack.relay.start();
  }
  return stack;
}

export { eventually } from './eventually';

// The SDK's own logs stay out of the test output unless asked for.
import { Runtime, DefaultLogger } from '@temporalio/worker';
if (!process.env.TEST_LOG_LEVEL) {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* already installed in this worker process */
  }
}
