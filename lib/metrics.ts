import client from 'prom-client';

/**
 * One registry per process. The API exposes it at GET /metrics; the worker on its own port.
 * Metric names are part of the operations contract (docs/operations.md).
 */
export function createMetrics(component: string) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ component });
  client.collectDefaultMetrics({ register: registry });

  const httpRequests = new client.Counter({
    name: 'data_import_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'data_import_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const importTransitions = new client.Counter({
    name: 'data_import_import_transitions_total',
    help: 'Import process status changes made by this process, by new status',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const importValidations = new client.Counter({
    name: 'data_import_worker_revalidations_total',
    help: 'Stored payloads the worker validated again (validated) or found covered by the fingerprint of the API validation (skipped)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const eventsPublished = new client.Counter({
    name: 'data_import_events_published_total',
    help: 'Events the outbox relay published and JetStream acknowledged',
    registers: [registry],
  });
  const publishFailures = new client.Counter({
    name: 'data_import_event_publish_failures_total',
    help: 'Failed attempts to publish an outbox batch',
    registers: [registry],
  });
  const relayStepDowns = new client.Counter({
    name: 'data_import_relay_step_downs_total',
    help: 'Times the outbox relay leader handed over the leadership because it could publish nothing for longer than its lease',
    registers: [registry],
  });
  const relayLag = new client.Histogram({
    name: 'data_import_relay_lag_seconds',
    help: 'From an event being written to the outbox to JetStream acknowledging it',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration, importTransitions, importValidations, eventsPublished, publishFailures, relayStepDowns, relayLag, ...retentionMetrics(registry), ...queueMetrics(registry) };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Items of a queue several processes share that failed an attempt, and those set aside after their
 * last (issue 47: a poison item never stops anyone else; docs/operations.md "Set-aside queue items").
 */
function queueMetrics(registry: client.Registry) {
  const queueItemFailures = new client.Counter({
    name: 'data_import_queue_item_failures_total',
    help: 'Attempts at a shared queue item that failed for the item itself, by queue (digest, outbox, sweeper, email, retention)',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const queueItemsSetAside = new client.Counter({
    name: 'data_import_queue_items_set_aside_total',
    help: 'Shared queue items this process set aside after their last attempt (named by `data-import set-aside list`), by queue (digest, outbox, sweeper, email, retention)',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  return { queueItemFailures, queueItemsSetAside };
}

/** What retention (maintenance/retention.ts) pruned, and what it still holds, by kind. */
function retentionMetrics(registry: client.Registry) {
  const retentionPruned = new client.Counter({
    name: 'data_import_retention_pruned_total',
    help: 'Rows pruned by retention: kind=outbox (published events deleted), kind=payload (stored payloads of PROCESSED imports dropped), kind=refresh_token (expired or revoked refresh tokens deleted)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const retentionPending = new client.Gauge({
    name: 'data_import_retention_pending',
    help: 'Rows past their retention and not pruned yet, as of the last maintenance run, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const retentionHeldUnpublished = new client.Gauge({
    name: 'data_import_retention_held_unpublished',
    help: 'Outbox events past their retention kept because JetStream has not acknowledged them, as of the last maintenance run',
    registers: [registry],
  });
  const retentionLastRun = new client.Gauge({
    name: 'data_import_retention_last_run_timestamp_seconds',
    help: 'When the last maintenance run of this process finished (Unix time)',
    registers: [registry],
  });
  return { retentionPruned, retentionPending, retentionHeldUnpublished, retentionLastRun };
}

/** A gauge read from the database when scraped: one value, or values by one label. */
export type DatabaseGauge = { name: string; help: string } & ({ read: () => Promise<number> } | { label: string; read: () => Promise<Record<string, number>> });

/**
 * Registers a gauge read from the database when scraped (collected on scrape, so every replica
 * reports the same truth without a background loop). A labelled gauge is reset before its new
 * values are set, so a label that is gone drops out; a failed read leaves the last values: the
 * database unreachable, /readyz reports it, and the scrape stays alive.
 */
export function registerDatabaseGauge(metrics: Metrics, g: DatabaseGauge): void {
  const common = { name: g.name, help: g.help, registers: [metrics.registry] };
  if ('label' in g) {
    new client.Gauge({
      ...common,
      labelNames: [g.label],
      async collect() {
        try {
          const values = await g.read();
          this.reset();
          for (const [value, n] of Object.entries(values)) this.set({ [g.label]: value }, n);
        } catch {
          /* see above */
        }
      },
    });
  } else {
    new client.Gauge({
      ...common,
      async collect() {
        try {
          this.set(await g.read());
        } catch {
          /* see above */
        }
      },
    });
  }
}

/**
 * Gauges read from PostgreSQL when scraped: imports by status and the outbox backlog, from one
 * read shared by the three for a second.
 */
export function registerDatabaseGauges(
  metrics: Metrics,
  read: () => Promise<{ importsByStatus: Record<string, number>; outboxBacklog: number; outboxOldestAgeSeconds: number }>,
): void {
  let cache: Promise<Awaited<ReturnType<typeof read>>> | undefined;
  const snapshot = () => {
    cache ??= read().finally(() => setTimeout(() => (cache = undefined), 1000).unref());
    return cache;
  };
  registerDatabaseGauge(metrics, { name: 'data_import_imports', help: 'Import processes by status', label: 'status', read: async () => (await snapshot()).importsByStatus });
  registerDatabaseGauge(metrics, {
    name: 'data_import_outbox_backlog',
    help: 'Events written to the outbox and not yet acknowledged by JetStream',
    read: async () => (await snapshot()).outboxBacklog,
  });
  registerDatabaseGauge(metrics, {
    name: 'data_import_outbox_oldest_age_seconds',
    help: 'Age of the oldest unpublished outbox event',
    read: async () => (await snapshot()).outboxOldestAgeSeconds,
  });
}
