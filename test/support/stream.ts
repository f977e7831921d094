import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '../../events/nats';
import type { EventEnvelope } from '../../events/envelope';

export interface StoredEvent {
  subject: string;
  seq: number;
  msgId: string | undefined;
  /** The W3C trace context headers the relay set (docs/tracing.md), when the event was traced. */
  traceparent: string | undefined;
  tracestate: string | undefined;
  envelope: EventEnvelope;
}

/** Every message of a stream (optionally filtered by subject), oldest first. */
export async function readStream(nc: NatsConnection, stream: string, filter?: string): Promise<StoredEvent[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const out: StoredEvent[] = [];
  if (info.state.messages === 0) return out;
  const js = jetstream(nc);
  const name = `reader_${Math.random().toString(36).slice(2, 10)}`;
  await jsm.consumers.add(stream, { name, ack_policy: 'none' as never, filter_subject: filter, inactive_threshold: 60_000_000_000 });
  try {
    const consumer = await js.consumers.get(stream, name);
    const pending = (await consumer.info()).num_pending;
    if (pending === 0) return out;
    // In batches until all of them are read: one fetch of a large stream may expire before it has
    // delivered everything on a loaded machine (the hosts harness read 12,000 events, saw part).
    while (out.length < pending) {
      const iter = await consumer.fetch({ max_messages: Math.min(pending - out.length, 2000), expires: 10_000 });
      const before = out.length;
      for await (const m of iter) {
        out.push({
          subject: m.subject,
          seq: m.seq,
          msgId: m.headers?.get('Nats-Msg-Id'),
          traceparent: m.headers?.get('traceparent') || undefined,
          tracestate: m.headers?.get('tracestate') || undefined,
          envelope: m.json<EventEnvelope>(),
        });
        if (out.length >= pending) break;
      }
      if (out.length === before) throw new Error(`read ${out.length} of the ${pending} messages of stream ${stream}: no more arrived`);
    }
  } finally {
    await jsm.consumers.delete(stream, name).catch(() => undefined);
  }
  return out;
}
