import { uuidFromKey } from '../lib/ids';
import { CATALOGUE, entryKey, type CatalogueEntry } from './catalogue';
import { EVENT_SOURCE, HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION } from './envelope';
import { subjectFor } from './subjects';

export interface AsyncApiOptions {
  /** Subject prefix, as configured for the publisher (default there: `events`). */
  subjectPrefix: string;
  /** e.g. `nats://127.0.0.1:4222`; without it the document names no server. */
  serverUrl?: string;
}

const ENVELOPE_REF = '#/components/schemas/EventEnvelope';
const EXAMPLE_OCCURRED_AT = '2026-11-21T09:30:00.000Z';

// The envelope every message body has (docs/spec/DESIGN.md "Events"); each message narrows `type`,
// `version` and `data` to its catalogue entry.
const EVENT_ENVELOPE = {
  type: 'object',
  description: 'Message body of every event: the catalogue payload in `data`, wrapped with its identity.',
  additionalProperties: false,
  required: ['id', 'type', 'version', 'occurred_at', 'source', 'data'],
  properties: {
    id: { type: 'string', format: 'uuid', description: `Event id, also sent as the ${HEADER_MSG_ID} header.` },
    type: { type: 'string', description: 'Event type, e.g. account.created.' },
    version: { type: 'string', description: 'Payload version, e.g. v1 or 1.0.0.' },
    occurred_at: { type: 'string', format: 'date-time' },
    source: { type: 'string', description: `Publishing service, "${EVENT_SOURCE}" for this service.` },
    data: { type: 'object', description: 'The catalogue payload of this type and version.' },
  },
};

/** A JSON copy: drops TypeBox's symbol keys, so the document is plain data. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function headersSchema(entry: CatalogueEntry) {
  return {
    type: 'object',
    required: [HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION],
    properties: {
      [HEADER_MSG_ID]: {
        type: 'string',
        format: 'uuid',
        description: 'Equals the envelope id; JetStream drops a message whose id it has seen.',
      },
      [HEADER_TYPE]: { type: 'string', const: entry.type },
      [HEADER_VERSION]: { type: 'string', const: entry.version },
      traceparent: {
        type: 'string',
        pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
        description: 'W3C trace context of the import that produced the event (its publication span), when the import was traced: continue it in the consumer (docs/tracing.md).',
      },
      tracestate: { type: 'string', description: 'W3C trace state accompanying traceparent, when there is one.' },
    },
  };
}

function message(entry: CatalogueEntry, key: string) {
  const id = uuidFromKey(`asyncapi-example:${key}`);
  return {
    name: key,
    title: `${entry.type} ${entry.version}`,
    summary: entry.description,
    contentType: 'application/json',
    headers: headersSchema(entry),
    payload: {
      allOf: [
        { $ref: ENVELOPE_REF },
        {
          type: 'object',
          properties: {
            type: { const: entry.type },
            version: { const: entry.version },
            data: { $ref: `#/components/schemas/${key}` },
          },
        },
      ],
    },
    examples: [
      {
        name: 'example',
        headers: { [HEADER_MSG_ID]: id, [HEADER_TYPE]: entry.type, [HEADER_VERSION]: entry.version },
        payload: {
          id,
          type: entry.type,
          version: entry.version,
          occurred_at: EXAMPLE_OCCURRED_AT,
          source: EVENT_SOURCE,
          data: entry.example,
        },
      },
    ],
  };
}

function server(serverUrl: string) {
  const url = new URL(serverUrl);
  return { host: url.host, protocol: url.protocol.replace(/:$/, ''), description: 'NATS JetStream' };
}

/**
 * The AsyncAPI 3.0 document of everything the catalogue describes, generated from CATALOGUE so the
 * document cannot drift from the schemas the publisher validates against. One channel (and one
 * message, and one `receive` operation for consumers) per type-version; keys are `<type>-<version>`.
 */
export function buildAsyncApiDocument(opts: AsyncApiOptions): object {
  const channels: Record<string, object> = {};
  const operations: Record<string, object> = {};
  const messages: Record<string, object> = {};
  const schemas: Record<string, object> = { EventEnvelope: EVENT_ENVELOPE };

  for (const entry of CATALOGUE) {
    const key = entryKey(entry.type, entry.version);
    schemas[key] = plain(entry.schema);
    messages[key] = message(entry, key);
    channels[key] = {
      address: subjectFor(opts.subjectPrefix, entry.type, entry.version),
      title: key,
      description: entry.partial
        ? `${entry.description} The catalogue lists this entry only in part; unlisted fields may follow.`
        : entry.description,
      messages: { [key]: { $ref: `#/components/messages/${key}` } },
    };
    operations[`receive.${key}`] = {
      action: 'receive',
      summary: `Consume ${key}`,
      channel: { $ref: `#/channels/${key}` },
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Data-import service events',
      version: '1.0.0',
      description:
        'Events published to NATS JetStream, one subject per type and version: ' +
        `${opts.subjectPrefix}.<event type>.<version, dots as underscores>. ` +
        `Each body is an envelope {id, type, version, occurred_at, source, data}; the ${HEADER_MSG_ID} header equals id.`,
    },
    defaultContentType: 'application/json',
    ...(opts.serverUrl ? { servers: { nats: server(opts.serverUrl) } } : {}),
    channels,
    operations,
    components: { schemas, messages },
  };
}
