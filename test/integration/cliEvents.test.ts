import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { TEST_NATS_URL } from '../support/env';
import { runCli } from '../unit/cli/runCli';
import { connectNats, ensureStream, NatsConnection } from '../../events/nats';
import { buildEnvelope } from '../../events/outbox';
import { subjectFor } from '../../events/subjects';
import { CATALOGUE } from '../../events/catalogue';
import type { EventEnvelope } from '../../events/envelope';
import { parseSince } from '../../cli/commands/events';

const COMPLETE = 'data_import.import_process.complete';
const CANCELLED = 'data_import.import_process.cancelled';

describe('data-import events tail', () => {
  let nc: NatsConnection;
  let env: Record<string, string>;
  let prefix: string;
  let stream: string;
  let counter = 0;

  beforeAll(async () => {
    const id = crypto.randomBytes(4).toString('hex');
    prefix = `c${id}`;
    stream = `C_${id}`;
    env = { NATS_URL: TEST_NATS_URL, EVENTS_STREAM: stream, EVENTS_SUBJECT_PREFIX: prefix };
    nc = await connectNats(TEST_NATS_URL, `cli-events-test-${id}`);
    await ensureStream(nc, { stream, subjectPrefix: prefix, duplicateWindowMs: 10 * 60_000, maxAgeMs: 60 * 60_000, maxBytes: -1, replicas: 1 });
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  async function publish(type: typeof COMPLETE | typeof CANCELLED): Promise<EventEnvelope> {
    const n = ++counter;
    const placement = { key: `cli-test:${n}`, orderingKey: 'cli-test', occurredAt: new Date() };
    const envelope = buildEnvelope(
      type === COMPLETE
        ? { type, version: 'v1', data: { resource_type: 'account', external_identifier: `EXT-${n}`, identifier: `A-${n}` }, ...placement }
        : { type, version: 'v1', data: { resource_type: 'account', external_identifier: `EXT-${n}`, expiry_window_end: '2026-11-25T00:00:00Z' }, ...placement },
    );
    await jetstream(nc).publish(subjectFor(prefix, type, 'v1'), JSON.stringify(envelope), { msgID: envelope.id });
    return envelope;
  }

  let published: EventEnvelope[] = [];
  beforeAll(async () => {
    published = [await publish(COMPLETE), await publish(CANCELLED), await publish(COMPLETE), await publish(CANCELLED)];
  });

  it('prints the first events of the stream as JSON lines, in stream order, and stops after --count', async () => {
    const run = await runCli(['events', 'tail', '--since', 'all', '--json', '--count', '3'], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(published.slice(0, 3));
  });

  it('prints time, subject and id, then the payload as indented JSON, for the subjects of the filter only', async () => {
    const subject = subjectFor(prefix, CANCELLED, 'v1');
    const run = await runCli(['events', 'tail', '--since', '1h', '--subject', `${prefix}.${CANCELLED}.>`, '--count', '2'], env);
    expect(run.code).toBe(0);
    const cancelled = published.filter((e) => e.type === CANCELLED);
    const expected = cancelled.map((e) => [`${e.occurred_at}  ${subject}  ${e.id}`, ...JSON.stringify(e.data, null, 2).split('\n').map((l) => `  ${l}`), ''].join('\n'));
    expect(run.stdout).toBe(expected.map((block) => `${block}\n`).join(''));
  });

  it("with --since new, skips what the stream already holds and prints what is published next", async () => {
    const running = runCli(['events', 'tail', '--since', 'new', '--json', '--count', '1'], env);
    let done = false;
    void running.then(() => (done = true));
    // The consumer starts asynchronously: keep publishing until it has seen one.
    const later: string[] = [];
    while (!done) {
      later.push((await publish(COMPLETE)).id);
      await new Promise((r) => setTimeout(r, 150));
    }
    const run = await running;
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout.trim()) as EventEnvelope;
    expect(later).toContain(printed.id);
  });

  it('fails with exit code 1 when the stream does not exist', async () => {
    const run = await runCli(['events', 'tail', '--count', '1'], { ...env, EVENTS_STREAM: `${stream}_MISSING` });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // Told by JetStream's error code (stream not found), not by the wording of its message.
    expect(run.stderr).toMatch(new RegExp(`^data-import: no stream ${stream}_MISSING at `));
  });

  it('rejects a --since it cannot read with a usage error', async () => {
    const run = await runCli(['events', 'tail', '--since', 'yesterday'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("option '--since <when>'");
  });

  it('stops on Ctrl-C (SIGINT) with exit code 0', async () => {
    const bin = path.join(__dirname, '../../bin/data-import');
    const child = spawn(bin, ['events', 'tail', '--since', 'new'], { env: { ...process.env, ...env, DATA_IMPORT_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Once it prints an event, the consumer is running and the SIGINT handler installed.
    const deadline = Date.now() + 30_000;
    while (!out.includes(prefix) && Date.now() < deadline) {
      await publish(COMPLETE);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(out).toContain(`${prefix}.${COMPLETE}.v1`);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 45_000);
});

describe('data-import events catalogue', () => {
  const env = { EVENTS_SUBJECT_PREFIX: 'events' };

  it('lists the entries of a type prefix as JSON with subject, fields and partial flag', async () => {
    const run = await runCli(['events', 'catalogue', '--type', 'data_import.import_process.', '--json'], env);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { type: string; version: string; subject: string; partial: boolean; fields: unknown[] }[];
    const expected = CATALOGUE.filter((e) => e.type.startsWith('data_import.import_process.'));
    expect(rows.map((r) => [r.type, r.version, r.subject])).toEqual(expected.map((e) => [e.type, e.version, subjectFor('events', e.type, e.version)]));
    expect(rows.find((r) => r.type === COMPLETE)).toMatchObject({
      version: 'v1',
      subject: 'events.data_import.import_process.complete.v1',
      partial: false,
      fields: [
        { name: 'resource_type', type: 'str', required: true },
        { name: 'external_identifier', type: 'str', required: true },
        { name: 'identifier', type: 'str', required: true },
      ],
    });
  });

  it('summarises optional fields, arrays and nested objects in the table', async () => {
    const run = await runCli(['events', 'catalogue', '--type', 'account.created'], env);
    expect(run.code).toBe(0);
    const [header, rule, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['TYPE', 'VERSION', 'SUBJECT', 'PARTIAL', 'FIELDS']);
    expect(rule).toMatch(/^[- ]+$/);
    expect(rows.map((r) => r.split(/\s{2,}/))).toEqual([
      ['account.created', 'v1', 'events.account.created.v1', 'no', 'account_number str, account_user_emails [str], is_imported? bool'],
    ]);
  });

  it('marks the entries the spec shows only in part', async () => {
    const run = await runCli(['events', 'catalogue', '--json'], env);
    const rows = JSON.parse(run.stdout) as { type: string; version: string; partial: boolean }[];
    expect(rows.filter((r) => r.partial).map((r) => `${r.type}-${r.version}`)).toEqual(CATALOGUE.filter((e) => e.partial).map((e) => `${e.type}-${e.version}`));
    expect(rows).toHaveLength(CATALOGUE.length);
  });

  it('says so when no type has the prefix', async () => {
    const run = await runCli(['events', 'catalogue', '--type', 'no_such_type.'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('TYPE');
  });
});

describe('--since', () => {
  const now = () => Date.parse('2026-11-21T12:00:00Z');

  it('reads new, all, durations and ISO timestamps', () => {
    expect(parseSince('new', now)).toEqual({ kind: 'new' });
    expect(parseSince('all', now)).toEqual({ kind: 'all' });
    expect(parseSince('90s', now)).toEqual({ kind: 'time', at: new Date('2026-11-21T11:58:30Z') });
    expect(parseSince('1h30m', now)).toEqual({ kind: 'time', at: new Date('2026-11-21T10:30:00Z') });
    expect(parseSince('2d', now)).toEqual({ kind: 'time', at: new Date('2026-11-19T12:00:00Z') });
    expect(parseSince('2026-11-20T08:00:00Z', now)).toEqual({ kind: 'time', at: new Date('2026-11-20T08:00:00Z') });
  });

  it.each(['', '5x', '1.5h', 'yesterday', '12', 'h1'])('rejects %p', (v) => {
    expect(() => parseSince(v, now)).toThrow(expect.objectContaining({ code: 'commander.invalidArgument' }));
  });
});
