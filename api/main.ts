// First: tracing patches the HTTP and PostgreSQL modules before anything loads them.
import './tracing';
import { bootProcess } from '../lib/boot';
import { requireApiSettings } from '../lib/config';
import { exitOnSignalDuringStartup } from '../lib/shutdown';
import { createMetrics, registerDatabaseGauges } from '../lib/metrics';
import { createDb, postgresCheck } from '../db/knex';
import { connectNats } from '../events/nats';
import { connectTemporal } from '../lib/temporal';
import { natsCheck, temporalCheck } from '../lib/readiness';
import { ReferenceDataCache } from '../account/referenceDataCache';
import { countImportsByStatus } from '../ops/store';
import { outboxBacklog } from '../events/outbox';
import { createApp } from './app';
import { createApiServer } from './server';
import { dbAuthStore } from '../auth/store';
import { startOpsServer } from '../ops/server';
import { deployStatus } from '../deploys/status';
import { registerCustomerEmailGauge } from '../emails/metrics';

// Until the server listens, a stop signal exits at once (lib/shutdown.ts).
const startedUp = exitOnSignalDuringStartup('api');
bootProcess('api', async ({ config, log, onShutdown }) => {
  const metrics = createMetrics('api');
  const db = createDb(config.database.url, config.database.poolMax);
  const nc = await connectNats(config.nats, 'data-import-api', log);
  const { client: temporal, connection } = await connectTemporal(config.temporal);
  const referenceData = new ReferenceDataCache(db);
  await referenceData.start();

  registerDatabaseGauges(metrics, async () => {
    const backlog = await outboxBacklog(db);
    return { importsByStatus: await countImportsByStatus(db), outboxBacklog: backlog.count, outboxOldestAgeSeconds: backlog.oldestAgeSeconds };
  });
  registerCustomerEmailGauge(metrics, db);

  const deps = {
    config,
    db,
    log,
    metrics,
    temporal,
    referenceData,
    readiness: { postgres: postgresCheck(db), nats: natsCheck(nc), temporal: temporalCheck(connection) },
    authStore: dbAuthStore(db),
  };
  const app = createApp(deps);

  const server = createApiServer(config.http, app.callback());
  await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.http.port;
  log.info({ url: `${config.http.tls ? 'https' : 'http'}://${config.http.host}:${port}` }, 'API listening');
  // The operations page: a second listener of this process (OPS_BIND), read-only.
  const ops = await startOpsServer(config, { db, log, deployment: () => deployStatus(temporal, config) });

  startedUp();
  onShutdown(async () => {
    // Stop accepting, let in-flight requests finish, then close the clients.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await ops?.close();
    await referenceData.stop();
    await nc.drain().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await db.destroy();
  });
}, (err) => `api failed to start: ${err instanceof Error ? err.message : String(err)}`, { requires: requireApiSettings });
