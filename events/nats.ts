import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import type { Logger } from '../lib/logger';

export type { NatsConnection };

export async function connectNats(url: string, name: string, log?: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name,
    // Keep trying for ever: the outbox holds events while NATS is away.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    waitOnFirstConnect: false,
    // Every request (each JetStream publish is one) would otherwise build two Error objects up
    // front, stack traces and all, in case it fails: ~2 % of the worker's CPU at ~9 events per
    // account (bench/NOTES.md). A failure still says what failed, without the caller's stack.
    noAsyncTraces: true,
  });
  if (log) {
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') log.warn({ nats: s.type }, 'nats connection status');
      }
    })().catch(() => undefined);
  }
  return nc;
}

export interface StreamSettings {
  stream: string;
  subjectPrefix: string;
  duplicateWindowMs: number;
  maxAgeMs: number;
  maxBytes: number;
  replicas: number;
}

const nanos = (ms: number) => ms * 1_000_000;

/**
 * Creates the events stream, or updates its settings: file storage, every subject under the
 * prefix, a duplicate window longer than the relay's retry horizon (so a republished id is
 * always recognised), retention limits from configuration.
 */
export async function ensureStream(nc: NatsConnection, s: StreamSettings): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: s.stream,
    subjects: [`${s.subjectPrefix}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(s.duplicateWindowMs),
    max_age: nanos(s.maxAgeMs),
    max_bytes: s.maxBytes,
    num_replicas: s.replicas,
  };
  try {
    await jsm.streams.info(s.stream);
  } catch {
    try {
      await jsm.streams.add(config);
      return;
    } catch (err) {
      // Another process created it first: fall through to update.
      if (!/already in use|exists/i.test(String(err))) throw err;
    }
  }
  const { storage: _storage, ...updatable } = config;
  await jsm.streams.update(s.stream, updatable);
}
