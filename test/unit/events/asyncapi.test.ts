import { Parser } from '@asyncapi/parser';
import { buildAsyncApiDocument } from '../../../events/asyncapi';
import { CATALOGUE, validatePayload } from '../../../events/catalogue';

interface Doc {
  servers?: Record<string, { host: string; protocol: string }>;
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  operations: Record<string, { action: string; channel: { $ref: string } }>;
  components: {
    messages: Record<
      string,
      { headers: { required: string[] }; examples: Array<{ headers: Record<string, string>; payload: { id: string; type: string; version: string; data: unknown } }> }
    >;
  };
}

const doc = buildAsyncApiDocument({ subjectPrefix: 'events', serverUrl: 'nats://127.0.0.1:4222' }) as Doc;

describe('buildAsyncApiDocument', () => {
  it('produces a document the AsyncAPI parser reports no errors for', async () => {
    const diagnostics = await new Parser().validate(doc as never);
    // severity 0 is "error"; warnings (such as "a newer AsyncAPI version exists") are allowed
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  }, 60_000);

  it('has one channel, one message and one receive operation per catalogue entry', () => {
    expect(Object.keys(doc.channels)).toHaveLength(CATALOGUE.length);
    expect(Object.keys(doc.components.messages)).toHaveLength(CATALOGUE.length);
    const operations = Object.values(doc.operations);
    expect(operations).toHaveLength(CATALOGUE.length);
    expect(new Set(operations.map((o) => o.action))).toEqual(new Set(['receive']));
  });

  it('addresses channels by subject, with version dots as underscores', () => {
    expect(doc.channels['account.created-v1'].address).toBe('events.account.created.v1');
    expect(doc.channels['lifecycle.support-site.sale-1.0.0'].address).toBe('events.lifecycle.support-site.sale.1_0_0');
    const custom = buildAsyncApiDocument({ subjectPrefix: 'staging.events' }) as Doc;
    expect(custom.channels['account.created-v1'].address).toBe('staging.events.account.created.v1');
    expect(custom.servers).toBeUndefined();
  });

  it('requires the Nats-Msg-Id, Event-Type and Event-Version headers, and its examples carry them', () => {
    const message = doc.components.messages['data_import.import_process.complete-v1'];
    expect(message.headers.required).toEqual(['Nats-Msg-Id', 'Event-Type', 'Event-Version']);
    const [example] = message.examples;
    expect(example.headers).toEqual({
      'Nats-Msg-Id': example.payload.id,
      'Event-Type': 'data_import.import_process.complete',
      'Event-Version': 'v1',
    });
  });

  it('shows for every message an example envelope whose data is a valid catalogue payload', () => {
    for (const entry of CATALOGUE) {
      const [example] = doc.components.messages[`${entry.type}-${entry.version}`].examples;
      const { payload } = example;
      expect([payload.type, payload.version]).toEqual([entry.type, entry.version]);
      expect(validatePayload(entry.type, entry.version, payload.data)).toEqual({ ok: true });
    }
  });

  it('names the NATS server when given one', () => {
    expect(doc.servers).toEqual({ nats: expect.objectContaining({ host: '127.0.0.1:4222', protocol: 'nats' }) });
  });
});
