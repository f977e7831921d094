/**
 * OpenTelemetry tracing of one process (docs/tracing.md), configured only by the standard OTEL_*
 * variables and OFF unless an OTLP exporter endpoint is set: then no SDK is started, nothing is
 * patched, and the few calls the code makes into `@opentelemetry/api` hit its no-op defaults.
 *
 * When on: a NodeTracerProvider (AsyncLocalStorage context, W3C trace context and baggage
 * propagation), the HTTP and PostgreSQL (pg) instrumentations, a batch span processor over an
 * OTLP/HTTP exporter (protobuf, or JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json). The Temporal
 * interceptors (lib/temporal.ts, worker/createWorker.ts) use this provider through the global API
 * and the workflow spans reach `spanProcessor` through the worker's sink.
 *
 * `startTracing` must run before `node:http`, `pg` and `knex` are first required: the entry points
 * import their `tracing.ts` first (api/tracing.ts, worker/tracing.ts).
 */
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { Sampler, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pino from 'pino';
import { ConfigError } from './config';

type Env = Record<string, string | undefined>;

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** The sampler when OTEL_TRACES_SAMPLER is unset: the API decides for a share of imports, every other process follows. */
export const DEFAULT_SAMPLER: SamplerName = 'parentbased_traceidratio';
/** The share of imports traced when OTEL_TRACES_SAMPLER_ARG is unset (docs/tracing.md "Sampling"). */
export const DEFAULT_SAMPLER_RATIO = 0.1;

export interface TracingSettings {
  /** Why tracing is off, or null when on. */
  off: string | null;
  serviceName: string;
  protocol: 'http/protobuf' | 'http/json';
  sampler: SamplerName;
  ratio: number;
}

const set = (env: Env, name: string) => {
  const v = env[name];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
};

/**
 * What the OTEL_* variables ask of this process; a value this service cannot honour throws a
 * ConfigError naming the variable (the process exits 2, like every other bad setting).
 */
export function tracingSettings(defaultServiceName: string, env: Env = process.env): TracingSettings {
  const disabled = set(env, 'OTEL_SDK_DISABLED');
  const exporter = set(env, 'OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && !['otlp', 'none'].includes(exporter)) {
    throw new ConfigError('OTEL_TRACES_EXPORTER', `expected otlp or none, got ${JSON.stringify(exporter)}`);
  }
  const protocol = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? set(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    const name = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    throw new ConfigError(name, `expected http/protobuf or http/json (OTLP over HTTP, a collector's port 4318), got ${JSON.stringify(protocol)}`);
  }
  const sampler = (set(env, 'OTEL_TRACES_SAMPLER') ?? DEFAULT_SAMPLER) as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new ConfigError('OTEL_TRACES_SAMPLER', `expected one of ${SAMPLERS.join(', ')}, got ${JSON.stringify(sampler)}`);
  const arg = set(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? DEFAULT_SAMPLER_RATIO : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `expected a number from 0 to 1, got ${JSON.stringify(arg)}`);
  const endpoint = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint !== undefined) {
    let scheme = '';
    try {
      scheme = new URL(endpoint).protocol;
    } catch {
      /* reported below */
    }
    if (scheme !== 'http:' && scheme !== 'https:') {
      const name = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
      throw new ConfigError(name, `expected a URL such as http://127.0.0.1:4318, got ${JSON.stringify(endpoint)}`);
    }
  }
  const off =
    disabled !== undefined && /^true$/i.test(disabled)
      ? 'OTEL_SDK_DISABLED=true'
      : exporter === 'none'
        ? 'OTEL_TRACES_EXPORTER=none'
        : endpoint === undefined
          ? 'no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
          : null;
  const fromAttributes = /(?:^|,)\s*service\.name\s*=\s*([^,]+)/.exec(env.OTEL_RESOURCE_ATTRIBUTES ?? '')?.[1]?.trim();
  return { off, serviceName: set(env, 'OTEL_SERVICE_NAME') ?? fromAttributes ?? defaultServiceName, protocol, sampler, ratio };
}

export function samplerFor(s: Pick<TracingSettings, 'sampler' | 'ratio'>): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk();
  const ratio = new TraceIdRatioBasedSampler(s.ratio);
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}

/** Requests that are not the service's work (probes, scrapes) make no trace. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(\/|\?|$)/;

const sdk = () => require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');

export interface Tracing {
  settings: TracingSettings;
  resource: Resource;
  /** Where every span of the process ends, the workflow sandbox's included (worker/createWorker.ts). */
  spanProcessor: SpanProcessor;
  provider: NodeTracerProvider;
  /** Exports what is buffered and stops (on shutdown). */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** The tracing this process started, or null when it is off. */
export function activeTracing(): Tracing | null {
  return active;
}

/** The OTEL diagnostics (an export that failed, a full queue) as log lines of the process, at OTEL_LOG_LEVEL (default warn). */
function diagLogger(serviceName: string): DiagLogger {
  const log = pino({ name: 'tracing', level: 'debug', base: { service: 'data-import', component: 'tracing', otel_service: serviceName }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } });
  const line = (level: 'error' | 'warn' | 'info' | 'debug') => (message: string, ...args: unknown[]) => log[level]({ detail: args.length ? args.map(String).join(' ') : undefined }, message);
  return { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug'), verbose: line('debug') };
}

function diagLevel(env: Env): DiagLogLevel {
  const v = (set(env, 'OTEL_LOG_LEVEL') ?? 'warn').toUpperCase();
  const levels: Record<string, DiagLogLevel> = { NONE: DiagLogLevel.NONE, ERROR: DiagLogLevel.ERROR, WARN: DiagLogLevel.WARN, INFO: DiagLogLevel.INFO, DEBUG: DiagLogLevel.DEBUG, VERBOSE: DiagLogLevel.VERBOSE, ALL: DiagLogLevel.ALL };
  const level = levels[v];
  if (level === undefined) throw new ConfigError('OTEL_LOG_LEVEL', `expected one of ${Object.keys(levels).join(', ').toLowerCase()}, got ${JSON.stringify(env.OTEL_LOG_LEVEL)}`);
  return level;
}

/**
 * Starts tracing for this process when the OTEL_* variables ask for it (else returns null and
 * does nothing at all). Idempotent. `defaultServiceName` names the process when neither
 * OTEL_SERVICE_NAME nor service.name in OTEL_RESOURCE_ATTRIBUTES does.
 */
export function startTracing(defaultServiceName: string, env: Env = process.env): Tracing | null {
  if (active) return active;
  const settings = tracingSettings(defaultServiceName, env);
  if (settings.off) return null;
  diag.setLogger(diagLogger(settings.serviceName), { logLevel: diagLevel(env), suppressOverrideMessage: true });
  // Loaded only now: a process with tracing off never loads the SDK.
  const { BatchSpanProcessor } = sdk();
  const { Resource, detectResourcesSync, envDetectorSync, hostDetectorSync, processDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const OtlpExporter =
    settings.protocol === 'http/json'
      ? (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter
      : (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter;

  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (env detector) over the host and process, over the default name.
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': settings.serviceName }))
    .merge(detectResourcesSync({ detectors: [hostDetectorSync, processDetectorSync, envDetectorSync] }));
  // The exporters read their endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*.
  const exporter: SpanExporter = new OtlpExporter();
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, sampler: samplerFor(settings), spanProcessors: [spanProcessor] });
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        // Outgoing requests are traced inside an import's work only, never as traces of their own.
        requireParentforOutgoingSpans: true,
      }),
      // Every statement of a traced request or step; background polling (relay, sweeper, reference
      // data, gauges) makes no trace of its own. Statement text only (bound values never: personal data).
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  active = {
    settings,
    resource,
    spanProcessor,
    provider,
    async shutdown() {
      unregister();
      await provider.shutdown().catch((err: unknown) => diag.warn('tracing shutdown failed', String(err)));
      active = null;
    },
  };
  return active;
}

/**
 * `startTracing` for an entry point's first import (api/tracing.ts, worker/tracing.ts): a bad
 * OTEL_* value exits 2 with the variable's name, as bootProcess does for the other settings.
 */
export function startProcessTracing(defaultServiceName: string): Tracing | null {
  try {
    return startTracing(defaultServiceName);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
