import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';

/**
 * A small OTLP/HTTP trace receiver (what a collector's port 4318 does, nothing more): it accepts
 * `POST /v1/traces` in either encoding the exporters send — protobuf (`application/x-protobuf`, the
 * default) or JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), gzip or not — answers 200 and keeps
 * the spans (the tracing test reads their tree) or only counts them (`keep: false`: the benchmark).
 */

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Spans received so far, by name (also when `keep` is false). */
  counts: Map<string, number>;
  requests: number;
  bytes: number;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

const attributes = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));

/** Ids are hex strings in OTLP/JSON and bytes in protobuf (decoded here to base64 by toObject). */
const hexId = (id: unknown) => (typeof id === 'string' ? (/^[0-9a-f]*$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex')) : '');

interface ExportRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: { traceId?: string; spanId?: string; parentSpanId?: string; name: string; kind?: number | string; attributes?: KeyValue[]; status?: { code?: number | string } }[] }[] }[];
}

const KINDS: Record<string, number> = { SPAN_KIND_INTERNAL: 1, SPAN_KIND_SERVER: 2, SPAN_KIND_CLIENT: 3, SPAN_KIND_PRODUCER: 4, SPAN_KIND_CONSUMER: 5 };
const STATUS: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

let protobufRequest: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): ExportRequest } | undefined;
function decodeProtobuf(body: Buffer): ExportRequest {
  // The generated OTLP protobuf types the exporter itself encodes with.
  protobufRequest ??= (require('@opentelemetry/otlp-transformer/build/src/generated/root') as { opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: typeof protobufRequest } } } } } }).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  const r = protobufRequest!;
  return r.toObject(r.decode(body), { longs: String, bytes: String, enums: String, defaults: false });
}

export async function startOtlpReceiver(opts: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = opts.keep ?? true;
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> = { spans: [], counts: new Map(), requests: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        receiver.requests++;
        receiver.bytes += body.length;
        if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
        const json = String(req.headers['content-type']).startsWith('application/json');
        const request: ExportRequest = json ? JSON.parse(body.toString('utf8')) : decodeProtobuf(body);
        for (const rs of request.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              receiver.counts.set(s.name, (receiver.counts.get(s.name) ?? 0) + 1);
              if (!keep) continue;
              receiver.spans.push({
                service,
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: typeof s.kind === 'string' ? (KINDS[s.kind] ?? 0) : (s.kind ?? 0),
                attributes: attributes(s.attributes),
                status: typeof s.status?.code === 'string' ? (STATUS[s.status.code] ?? 0) : (s.status?.code ?? 0),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
