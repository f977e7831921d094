import pino, { Logger } from 'pino';
import { traceLogFields } from './traceContext';
import { redactUrls } from './redact';

export type { Logger };

/**
 * Personal data never reaches the logs: any of these keys, at the top level or one level down
 * (and in the request/response objects we log), is replaced by "[redacted]". Log import context
 * (supplier, external account number, workflow id), never payload fields.
 */
const PERSONAL_KEYS = [
  'given_name', 'family_name', 'email', 'mobile', 'landline', 'date_of_birth', 'billing_name',
  'billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5',
  'billing_postcode', 'supply_address1', 'supply_address2', 'supply_address3', 'supply_address4',
  'supply_address5', 'supply_postcode', 'payload', 'body', 'password', 'authorization', 'apiKey',
  'APIKey', 'token', 'refreshToken',
];

export const REDACT_PATHS = [
  ...PERSONAL_KEYS,
  ...PERSONAL_KEYS.map((k) => `*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
];

/** The credentials of any URL quoted in a line's message or error (lib/redact.ts). */
function redactLogUrls(obj: Record<string, unknown>): Record<string, unknown> {
  const err = obj.err;
  if (err instanceof Error) {
    // A copy of the same class (pino's serializer names its type), message and stack redacted.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err);
    copy.message = redactUrls(err.message);
    if (err.stack) copy.stack = redactUrls(err.stack);
    obj.err = copy;
  }
  for (const [k, v] of Object.entries(obj)) if (typeof v === 'string' && v.includes('://')) obj[k] = redactUrls(v);
  return obj;
}

/**
 * A line written inside a trace carries its `trace_id`, `span_id` and `trace_flags` (the API's
 * request line, each import step's lines...): grep one import's trace id across processes, or
 * open its trace (docs/tracing.md). Outside a trace, and when tracing is off, nothing is added.
 */
export function createLogger(opts: { level: string; name: string; stream?: pino.DestinationStream }): Logger {
  const options: pino.LoggerOptions = {
    mixin: traceLogFields,
    name: opts.name,
    level: opts.level,
    base: { service: 'data-import', component: opts.name },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: redactLogUrls },
    hooks: {
      logMethod(args, method) {
        return method.apply(this, args.map((a) => (typeof a === 'string' && a.includes('://') ? redactUrls(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return opts.stream ? pino(options, opts.stream) : pino(options);
}
