/**
 * An event consumer to copy from: a durable pull consumer with explicit acks and id-based dedupe
 * (docs/events.md). Run it with `npx tsx examples/consumer.ts`.
 *
 * Environment: NATS_URL (nats://127.0.0.1:4222), EVENTS_STREAM (EVENTS), CONSUMER_NAME (billing),
 * CONSUMER_FILTER (events.account.>), MAX_EVENTS (stop after that many; default run until Ctrl-C),
 * and the service's own NATS credential and TLS settings, read the same way (docs/configuration.md:
 * NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_CREDS_FILE, NATS_TLS_CA, NATS_TLS_CERT/KEY,
 * NATS_INBOX_PREFIX): on a secured cluster a consumer is a user of its own whose permissions let it
 * create only its own consumer with its own filter (docs/events.md, "Who may read which events").
 *
 * What it shows:
 * - The consumer is durable: the server remembers what was acknowledged, so a restart resumes
 *   where it stopped and nothing published meanwhile is missed.
 * - Acks are explicit and sent only after the event was handled: a crash before the ack means
 *   the server redelivers it after ack_wait. Delivery is therefore at least once.
 * - The publisher also republishes with the same id after its own crashes (JetStream drops most
 *   of those, but not beyond the stream's duplicate window), so the handler dedupes by `id`.
 *   Here the seen ids live in memory; a real consumer records them in its own database in the
 *   same transaction as the effect of the event (a unique key on the id), so the check survives
 *   restarts.
 * - Order: events of one import are published in order. One consumer handling one message at a
 *   time (as here) sees them in that order; redelivery of a nak'd event can come after later ones.
 */
import { connect } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { EventEnvelope } from '../events/envelope';
import { natsConnectionOptions } from '../events/nats';
import { natsSettings } from '../lib/config';

const STREAM = process.env.EVENTS_STREAM ?? 'EVENTS';
const NAME = process.env.CONSUMER_NAME ?? 'billing';
const FILTER = process.env.CONSUMER_FILTER ?? 'events.account.>';
const MAX_EVENTS = process.env.MAX_EVENTS ? Number(process.env.MAX_EVENTS) : Infinity;

const SECOND_NS = 1_000_000_000;

/** Bounded memory of handled ids: the oldest are forgotten first. */
class SeenIds {
  private ids = new Set<string>();
  constructor(private readonly max: number) {}
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
  }
}

/** Your business logic. Throwing means "not handled": the message is redelivered later. */
async function handle(event: EventEnvelope): Promise<void> {
  console.log(`${event.occurred_at} ${event.type} ${event.version} ${event.id}`, JSON.stringify(event.data));
}

async function main(): Promise<void> {
  const nc = await connect({ ...natsConnectionOptions(natsSettings(process.env)), name: `consumer ${NAME}`, maxReconnectAttempts: -1 });
  // checkAPI off: a consumer's user may be allowed nothing of the JetStream API but its own consumer.
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  // Create the durable consumer once; later runs bind to it and resume after the last ack.
  await jsm.consumers.info(STREAM, NAME).catch(() =>
    jsm.consumers.add(STREAM, {
      durable_name: NAME,
      filter_subject: FILTER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      // How long the server waits for an ack before redelivering: longer than handle() takes.
      ack_wait: 30 * SECOND_NS,
      max_ack_pending: 1000,
    }),
  );
  const consumer = await jetstream(nc).consumers.get(STREAM, NAME);
  const messages = await consumer.consume({ max_messages: 100 });
  const stop = () => messages.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const seen = new SeenIds(100_000);
  let handled = 0;
  for await (const m of messages) {
    const event = parse(m);
    if (!event) {
      // Not an event envelope: nothing will ever make it one, so do not redeliver it for ever.
      console.error(`skipping ${m.subject} seq ${m.seq}: not an event envelope`);
      m.term();
      continue;
    }
    if (seen.has(event.id)) {
      m.ack(); // a duplicate: already handled, just confirm it
      continue;
    }
    try {
      await handle(event);
      seen.add(event.id);
      m.ack();
    } catch (err) {
      console.error(`event ${event.id} failed, redelivering in 5 s: ${String(err)}`);
      m.nak(5000);
    }
    if (++handled >= MAX_EVENTS) break;
  }
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await messages.close();
  await nc.drain();
}

function parse(m: JsMsg): EventEnvelope | undefined {
  try {
    const v = m.json<EventEnvelope>();
    return v && typeof v.id === 'string' && typeof v.type === 'string' ? v : undefined;
  } catch (err) {
    // A payload that is not JSON is no envelope (skipped below); any other failure is not ours to hide.
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
