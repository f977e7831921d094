// First: tracing patches the HTTP and PostgreSQL modules before anything loads them.
import './tracing';
import v8 from 'node:v8';
import http from 'node:http';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { bootProcess } from '../lib/boot';
import { exitOnSignalDuringStartup } from '../lib/shutdown';
import { createMetrics } from '../lib/metrics';
import { createDb } from '../db/knex';
import { DatabaseWatchdog } from '../db/watchdog';
import { connectNats, ensureStream } from '../events/nats';
import { OutboxRelay } from '../events/relay';
import { connectTemporal, temporalConnectionOptions } from '../lib/temporal';
import { ReferenceDataCache } from '../account/referenceDataCache';
import { createImportWorker } from './importWorker';
import { UnstartedRunSweeper } from '../imports/sweeper';
import { DigestFiller } from '../imports/digestFiller';
import { ensureMaintenanceSchedule } from './maintenanceSchedule';
import { freePort, listenWithFallback } from './metricsPorts';
import { currentBuild } from '../lib/buildInfo';
import { becomeCurrentIfNone } from '../deploys/versions';

// Until the worker runs there is nothing to drain: a stop signal during start-up exits at once.
const startedUp = exitOnSignalDuringStartup('worker');
bootProcess('worker', async ({ config, log, onShutdown }) => {
  const metrics = createMetrics('worker');
  // The build this process runs (its worker registers it as its version in the worker deployment).
  const build = currentBuild();

  // Worker metrics and the SDK's own (task latencies, slots, sticky cache...) on two Prometheus
  // endpoints. A port another worker on this host holds falls back to a free one (docs/operations.md "Supervision and ports").
  let metricsServer: http.Server | undefined;
  let metricsPort = 0;
  let sdkMetricsPort = 0;
  if (config.worker.metricsPort) {
    metricsServer = http.createServer(async (req, res) => {
      if (req.url === '/metrics') {
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.end(await metrics.registry.metrics());
      } else if (req.url === '/healthz') {
        res.end('{"status":"ok"}');
      } else {
        res.statusCode = 404;
        res.end('{"code":"not_found","detail":"Not found."}');
      }
    });
    const own = await listenWithFallback(metricsServer, config.worker.metricsPort, '127.0.0.1');
    const sdk = await freePort(config.worker.metricsPort + 1, '127.0.0.1');
    metricsPort = own.port;
    sdkMetricsPort = sdk.port;
    if (own.fellBack || sdk.fellBack) {
      log.warn({ preferred: [config.worker.metricsPort, config.worker.metricsPort + 1], metricsPort, sdkMetricsPort }, 'metrics ports taken (another worker on this host?): using free ones');
    }
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkMetricsPort}` } } } });
  }

  const db = createDb(config.database.url, config.database.poolMax);
  const nc = await connectNats(config.nats, 'data-import-worker', log);
  await ensureStream(nc, { ...config.nats, subjectPrefix: config.nats.subjectPrefix });
  const referenceData = new ReferenceDataCache(db);
  await referenceData.start();

  // A worker that cannot reach PostgreSQL while Temporal still gives it work leaves, so that its
  // imports go to workers that can (db/watchdog.ts); its supervisor starts it again.
  const watchdog = new DatabaseWatchdog({
    databaseUrl: config.database.url,
    unreachableMs: config.worker.dbUnreachableExitMs,
    onUnreachable: (silentMs, lastError) => {
      log.error({ silentMs, lastError, unreachableMs: config.worker.dbUnreachableExitMs }, 'PostgreSQL unreachable for longer than WORKER_DB_UNREACHABLE_EXIT_MS: the worker leaves (exit 75) so that other workers take its imports');
      // Not a graceful shutdown: the steps in flight hang on a silent server and would hold it.
      setTimeout(() => process.exit(75), 200).unref();
    },
  });
  watchdog.start();

  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const { worker, version, close: closeWorker } = await createImportWorker({
    config,
    log,
    metrics,
    db,
    referenceData,
    connection,
    maxConcurrentWorkflowTasks: config.worker.maxConcurrentWorkflowTasks,
    reachesDatabase: () => watchdog.seemsReachable(),
  });

  const relay = new OutboxRelay({
    db,
    databaseUrl: config.database.url,
    nc,
    log: log.child({ part: 'relay' }),
    metrics,
    batchSize: config.relay.batchSize,
    pollIntervalMs: config.relay.pollIntervalMs,
    leaderLeaseMs: config.relay.leaderLeaseMs,
  });
  relay.start();

  const { client, connection: clientConnection } = await connectTemporal(config.temporal);
  const sweeper = new UnstartedRunSweeper({ db, temporal: client, taskQueue: config.temporal.taskQueue, log, metrics });
  sweeper.start();
  // The stored digests of the accounts the creates queued (docs/bulk-migration.md, "Stored digests").
  const digestFiller = new DigestFiller({ db, log: log.child({ part: 'digests' }), metrics });
  digestFiller.start();
  const { scheduleMinutes, ...retention } = config.retention;
  await ensureMaintenanceSchedule(client, { taskQueue: config.temporal.taskQueue, intervalMinutes: scheduleMinutes, settings: retention, log }).catch((err) =>
    // Retention can wait for the next start (or `data-import maintenance`); imports must not.
    log.warn({ err: String(err) }, 'could not create or update the maintenance schedule'),
  );

  const heapLimitMiB = Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20);
  log.info({ taskQueue: config.temporal.taskQueue, deployment: version.deploymentName, buildId: version.buildId, commit: build.commit, dirty: build.dirty, becomeCurrent: config.worker.becomeCurrent, metricsPort, sdkMetricsPort, heapLimitMiB, payloadBudgetBytes: config.worker.payloadBudgetBytes }, 'worker running');
  startedUp();
  onShutdown(async () => {
    // Activities in flight finish (up to the shutdown grace time) before the worker resolves.
    watchdog.stop();
    worker.shutdown();
    await runPromise;
    await sweeper.stop();
    await digestFiller.stop();
    await relay.stop();
    metricsServer?.close();
    await referenceData.stop();
    closeWorker();
    await nc.drain().catch(() => undefined);
    await clientConnection.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await db.destroy();
  }, 60_000);
  const runPromise = worker.run();
  if (config.worker.becomeCurrent === 'if-none') {
    // The first start on a namespace: nothing is current, so nothing would run new imports.
    // Once a build is current, only an operator moves it (data-import deploy set-current).
    becomeCurrentIfNone(client, version.deploymentName, version.buildId).then(
      (r) => log.info({ deployment: version.deploymentName, buildId: version.buildId, outcome: r }, r === 'became_current' ? 'no build was current: this build is now the current version' : r === 'other_current' ? 'another build is current: new imports start on this build once an operator makes it current (data-import deploy set-current)' : 'worker deployment checked'),
      (err) => log.warn({ err: String(err), deployment: version.deploymentName, buildId: version.buildId }, 'could not check the worker deployment (data-import deploy status)'),
    );
  }
  await runPromise;
}, (err) => `worker failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
