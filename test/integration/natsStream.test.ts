import crypto from 'node:crypto';
import { jetstream, JetStreamApiError, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { TEST_NATS_URL } from '../support/env';
import { connectNats, ensureStream, isJetStreamApiError, JS_API_CODES, type NatsConnection, type StreamSettings } from '../../events/nats';

/**
 * The events stream against the real NATS JetStream: created, found, updated, and its errors
 * told apart by type and API error code (never by the wording of the message).
 */
describe('events stream (ensureStream) and NATS errors by code', () => {
  let nc: NatsConnection;
  const made: string[] = [];

  function settings(over: Partial<StreamSettings> = {}): StreamSettings {
    const id = crypto.randomBytes(4).toString('hex');
    const s = { stream: `ES_${id}`, subjectPrefix: `es${id}`, duplicateWindowMs: 60_000, maxAgeMs: 60 * 60_000, maxBytes: -1, replicas: 1, ...over };
    made.push(s.stream);
    return s;
  }

  beforeAll(async () => {
    nc = await connectNats(TEST_NATS_URL, 'nats-stream-test');
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    for (const name of made) await jsm.streams.delete(name).catch(() => undefined);
    await nc.close();
  });

  it('the API answers an unknown stream and a name taken with other settings with their codes, as JetStreamApiError', async () => {
    const jsm = await jetstreamManager(nc);
    const s = settings();
    const missing = await jsm.streams.info(s.stream).then(() => undefined, (err: unknown) => err);
    expect(missing).toBeInstanceOf(JetStreamApiError);
    expect(isJetStreamApiError(missing, JS_API_CODES.streamNotFound)).toBe(true);

    await jsm.streams.add({ name: s.stream, subjects: [`${s.subjectPrefix}.>`], storage: StorageType.Memory });
    const taken = await jsm.streams.add({ name: s.stream, subjects: [`${s.subjectPrefix}.other.>`], storage: StorageType.Memory }).then(() => undefined, (err: unknown) => err);
    expect(isJetStreamApiError(taken, JS_API_CODES.streamNameInUse)).toBe(true);
    expect(isJetStreamApiError(taken, JS_API_CODES.streamNotFound)).toBe(false);
    expect(isJetStreamApiError(new Error('stream name already in use'), JS_API_CODES.streamNameInUse)).toBe(false);
  });

  it('creates the stream, is a no-op with the same settings, and updates it when they change', async () => {
    const jsm = await jetstreamManager(nc);
    const s = settings();
    await ensureStream(nc, s);
    const created = await jsm.streams.info(s.stream);
    expect(created.config).toMatchObject({ subjects: [`${s.subjectPrefix}.>`], storage: StorageType.File, duplicate_window: 60_000 * 1_000_000, max_age: 60 * 60_000 * 1_000_000 });

    await ensureStream(nc, s); // the same settings: a create JetStream answers as a success
    await Promise.all([ensureStream(nc, s), ensureStream(nc, s)]); // two processes starting at once

    // Changed configuration (the name now taken with other settings): updated in place, messages kept.
    await jetstream(nc).publish(`${s.subjectPrefix}.x`, 'kept');
    expect((await jsm.streams.info(s.stream)).state.messages).toBe(1);
    await ensureStream(nc, { ...s, maxAgeMs: 2 * 60 * 60_000, duplicateWindowMs: 120_000 });
    const updated = await jsm.streams.info(s.stream);
    expect(updated.config).toMatchObject({ max_age: 2 * 60 * 60_000 * 1_000_000, duplicate_window: 120_000 * 1_000_000 });
    expect(updated.state.messages).toBe(1);
  });

  it('throws any other answer as it is: subjects another stream already holds', async () => {
    const first = settings();
    await ensureStream(nc, first);
    const overlapping = settings({ subjectPrefix: first.subjectPrefix });
    const err = await ensureStream(nc, overlapping).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(JetStreamApiError);
    expect(isJetStreamApiError(err, JS_API_CODES.streamNameInUse)).toBe(false);
    await expect((await jetstreamManager(nc)).streams.info(overlapping.stream)).rejects.toBeInstanceOf(JetStreamApiError);
  });
});
