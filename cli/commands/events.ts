import { Command, InvalidArgumentError, Option } from 'commander';
import { DeliverPolicy, jetstream, type ConsumerMessages, type JsMsg, type OrderedConsumerOptions } from '@nats-io/jetstream';
import type { TSchema } from '@sinclair/typebox';
import { CATALOGUE, type CatalogueEntry } from '../../events/catalogue';
import type { EventEnvelope } from '../../events/envelope';
import { HEADER_MSG_ID } from '../../events/envelope';
import { connectNats, isJetStreamApiError, JS_API_CODES, type NatsConnection, type NatsLink } from '../../events/nats';
import { subjectFor } from '../../events/subjects';
import { CliError } from '../errors';
import { cliConfig, print, printErr } from '../context';
import { integerIn, json, table, withExamples } from '../format';

/**
 * `data-import events`: what consumers can subscribe to (`catalogue`) and what is being published
 * right now (`tail`, an ordered ephemeral consumer on the events stream). docs/events.md explains
 * subjects, envelope and delivery guarantees.
 */

// --- --since ---------------------------------------------------------------------------------

export type Since = { kind: 'new' } | { kind: 'all' } | { kind: 'time'; at: Date };

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `new` (only what is published from now on, like `tail -f`), `all` (the whole stream), a duration
 * back from now (`90s`, `15m`, `1h30m`, `2d`) or an ISO timestamp.
 */
export function parseSince(value: string, now: () => number = Date.now): Since {
  const v = value.trim();
  if (v === 'new' || v === 'all') return { kind: v };
  if (/^(\d+(ms|s|m|h|d))+$/.test(v)) {
    let ms = 0;
    for (const [, n, unit] of v.matchAll(/(\d+)(ms|s|m|h|d)/g)) ms += Number(n) * UNIT_MS[unit!]!;
    return { kind: 'time', at: new Date(now() - ms) };
  }
  // Only full dates (with a day) count as timestamps: Date.parse accepts too much ("1", "May").
  if (/^\d{4}-\d\d-\d\d([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(v) && !Number.isNaN(Date.parse(v))) {
    return { kind: 'time', at: new Date(v) };
  }
  throw new InvalidArgumentError("expected 'new', 'all', a duration such as 30s, 15m, 1h30m, 2d, or an ISO timestamp.");
}

function consumerOptions(filter: string, since: Since): Partial<OrderedConsumerOptions> {
  // A string, not an array: one filter_subject works on servers before 2.10 too.
  const base = { filter_subjects: filter };
  if (since.kind === 'all') return { ...base, deliver_policy: DeliverPolicy.All };
  if (since.kind === 'new') return { ...base, deliver_policy: DeliverPolicy.New };
  return { ...base, deliver_policy: DeliverPolicy.StartTime, opt_start_time: since.at.toISOString() };
}

// --- printing one message ------------------------------------------------------------------------

function parseEnvelope(m: JsMsg): EventEnvelope | undefined {
  try {
    const v = m.json<EventEnvelope>();
    return v && typeof v === 'object' && typeof v.id === 'string' ? v : undefined;
  } catch (err) {
    // A payload that is not JSON is shown as it is; any other failure is not ours to hide.
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/** Time, subject and id on one line, then the payload as indented JSON. */
export function formatEvent(m: JsMsg): string {
  const envelope = parseEnvelope(m);
  // occurred_at is when the state change happened; the stream time only says when it was relayed.
  const time = envelope?.occurred_at ?? m.time.toISOString();
  const id = envelope?.id ?? m.headers?.get(HEADER_MSG_ID) ?? '-';
  const body = envelope ? JSON.stringify(envelope.data, null, 2) : m.string();
  const indented = body
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `${time}  ${m.subject}  ${id}\n${indented}\n`;
}

// --- tail ------------------------------------------------------------------------------------------

interface TailOptions {
  subject?: string;
  since: Since;
  json?: boolean;
  count?: number;
}

async function openNats(link: NatsLink): Promise<NatsConnection> {
  try {
    return await connectNats(link, 'data-import-cli events tail');
  } catch (err) {
    // The servers without the credentials NATS_URL may carry.
    throw new CliError(`cannot reach NATS at ${link.servers.join(',')}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function tail(o: TailOptions): Promise<void> {
  const config = cliConfig();
  const filter = o.subject ?? `${config.nats.subjectPrefix}.>`;
  const nc = await openNats(config.nats);
  let messages: ConsumerMessages | undefined;
  // Ctrl-C ends the iteration below, so the finally block closes the connection cleanly.
  const stopOnSignal = () => void messages?.stop();
  try {
    let consumer;
    try {
      // An ordered consumer: ephemeral, in stream order, recreated by the client after a gap.
      consumer = await jetstream(nc).consumers.get(config.nats.stream, consumerOptions(filter, o.since));
    } catch (err) {
      if (isJetStreamApiError(err, JS_API_CODES.streamNotFound)) {
        throw new CliError(`no stream ${config.nats.stream} at ${config.nats.servers.join(',')}: the service creates it when it starts (npm run up); check EVENTS_STREAM`);
      }
      throw new CliError(`cannot read stream ${config.nats.stream} at ${config.nats.servers.join(',')}: ${err instanceof Error ? err.message : String(err)}`);
    }
    messages = await consumer.consume();
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);
    let seen = 0;
    for await (const m of messages) {
      if (o.json) {
        const envelope = parseEnvelope(m);
        if (envelope) print(JSON.stringify(envelope));
        else printErr(`warning: ${m.subject} seq ${m.seq} is not an event envelope; skipped`);
      } else {
        // A blank line after each event separates the blocks.
        print(`${formatEvent(m)}\n`);
      }
      seen++;
      if (o.count !== undefined && seen >= o.count) break;
    }
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    await messages?.close().catch(() => undefined);
    await nc.close();
  }
}

// --- catalogue -------------------------------------------------------------------------------------

/** The spec's own notation (Conventions 2): str, int, num, bool, obj, [T]; a closed object lists its fields. */
export function typeSummary(schema: TSchema): string {
  const s = schema as TSchema & { type?: string; items?: TSchema; properties?: Record<string, TSchema>; required?: string[]; anyOf?: TSchema[] };
  if (s.anyOf) return s.anyOf.map(typeSummary).join('|');
  switch (s.type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'num';
    case 'boolean':
      return 'bool';
    case 'null':
      return 'null';
    case 'array':
      return `[${s.items ? typeSummary(s.items) : '?'}]`;
    case 'object':
      return s.properties ? `{${fieldNames(s).join(', ')}}` : 'obj';
    default:
      return '?';
  }
}

function fieldNames(schema: { properties?: Record<string, TSchema>; required?: string[] }): string[] {
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {}).map((k) => (required.has(k) ? k : `${k}?`));
}

export interface CatalogueField {
  name: string;
  type: string;
  required: boolean;
}

export function catalogueFields(entry: CatalogueEntry): CatalogueField[] {
  const s = entry.schema as TSchema & { properties?: Record<string, TSchema>; required?: string[] };
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, field]) => ({ name, type: typeSummary(field), required: required.has(name) }));
}

function catalogue(o: { type?: string; json?: boolean }): void {
  const prefix = cliConfig().nats.subjectPrefix;
  const entries = CATALOGUE.filter((e) => o.type === undefined || e.type.startsWith(o.type));
  const rows = entries.map((e) => ({
    type: e.type,
    version: e.version,
    subject: subjectFor(prefix, e.type, e.version),
    partial: e.partial === true,
    fields: catalogueFields(e),
    description: e.description,
    schema_id: (e.schema as { $id?: string }).$id ?? null,
  }));
  if (o.json) {
    print(json(rows));
    return;
  }
  print(
    table(
      ['TYPE', 'VERSION', 'SUBJECT', 'PARTIAL', 'FIELDS'],
      rows.map((r) => [r.type, r.version, r.subject, r.partial, r.fields.map((f) => `${f.name}${f.required ? '' : '?'} ${f.type}`).join(', ')]),
      o.type === undefined ? '(no events)' : `(no event type starts with ${JSON.stringify(o.type)})`,
    ),
  );
}

// --- registration ------------------------------------------------------------------------------

export function register(program: Command): void {
  const events = program
    .command('events')
    .description('Events published to NATS JetStream: the catalogue, and a live tail of the stream (docs/events.md).');

  withExamples(
    events
      .command('tail')
      .description(
        'Print events from the stream as they are published (an ordered ephemeral consumer; nothing is acknowledged or left behind). ' +
          'Stops on Ctrl-C or after --count events. Uses NATS_URL, EVENTS_STREAM and EVENTS_SUBJECT_PREFIX.',
      )
      .option('--subject <filter>', "subject filter, wildcards allowed (default '<EVENTS_SUBJECT_PREFIX>.>', every event)")
      .addOption(
        new Option(
          '--since <when>',
          "where to start: 'new' (only events published from now on), 'all' (the whole stream), a duration back from now (30s, 15m, 1h30m, 2d) or an ISO timestamp",
        )
          .argParser((v: string): Since => parseSince(v))
          .default({ kind: 'new' } satisfies Since, 'new'),
      )
      .option('--json', 'print each event envelope as one JSON line instead of the readable form')
      .option('--count <n>', 'stop after n events', integerIn(1, Number.MAX_SAFE_INTEGER))
      .action(async (o: TailOptions) => tail(o)),
    [
      'data-import events tail',
      "data-import events tail --subject 'events.data_import.>' --since 1h",
      'data-import events tail --since all --json --count 100 > events.jsonl',
    ],
  );

  withExamples(
    events
      .command('catalogue')
      .description(
        'List the event catalogue: type, payload version, subject (with EVENTS_SUBJECT_PREFIX), fields (name? = optional; str, int, num, bool, obj, [T]) ' +
          'and whether the spec shows the entry only in part (partial: unlisted extra fields may occur).',
      )
      .option('--type <prefix>', 'only event types starting with this prefix, e.g. data_import. or account.')
      .option('--json', 'print JSON (fields with name, type, required; the schema $id) instead of a table')
      .action((o: { type?: string; json?: boolean }) => catalogue(o)),
    ['data-import events catalogue --type data_import.', 'data-import events catalogue --json'],
  );
}
