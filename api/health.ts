import crypto from 'node:crypto';
import type { Context } from 'koa';
import { HttpError } from '../http/errors';
import { codesOf, json } from '../http/openapi';
import { operation } from '../http/operation';
import type { AppDeps } from './deps';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

const LOOPBACK_PEER = /^(127\.|::1$|::ffff:127\.)/;

/**
 * Headers some proxy adds when it forwards a request: the standard Forwarded and Via, every
 * X-Forwarded-* (For, Host, Proto…), and the single-address ones of nginx (X-Real-IP), Akamai and
 * Cloudflare (True-Client-IP, CF-Connecting-IP), Fastly and others. A name-based check, because a
 * proxy we did not list that adds only its own header would otherwise pass as a local client:
 * any of these present means "not this host's own client".
 */
const FORWARDING_HEADER = /^(forwarded|via|x-forwarded-.+|x-real-ip|x-client-ip|x-cluster-client-ip|x-original-forwarded-for|true-client-ip|cf-connecting-ip|fastly-client-ip)$/;

function forwarded(ctx: Context): boolean {
  return Object.keys(ctx.headers).some((name) => FORWARDING_HEADER.test(name.toLowerCase()));
}

/**
 * Who may read /metrics (counts by organisation-independent status, but also request volumes and
 * the service's inner state): with METRICS_TOKEN, a request bearing it; without, only a client on
 * this host that no proxy forwarded (a load balancer on the same host adds one of FORWARDING_HEADER).
 */
function metricsAllowed(token: string | undefined, ctx: Context): boolean {
  if (token !== undefined) {
    const given = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
    const hash = (v: string) => crypto.createHash('sha256').update(v).digest();
    return crypto.timingSafeEqual(hash(given), hash(token));
  }
  return LOOPBACK_PEER.test(ctx.req.socket.remoteAddress ?? '') && !forwarded(ctx);
}

/** Liveness (process alive), readiness (every dependency reachable), Prometheus metrics: open to everyone (metrics by token or from this host). */
export const healthOperations = [
  operation({
    method: 'get',
    path: '/healthz',
    open: true,
    handler: () => (ctx) => {
      ctx.body = { status: 'ok' };
    },
    openapi: { operationId: 'liveness', tags: ['operations'], security: [], responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'The process is alive.') } },
  }),
  operation({
    method: 'get',
    path: '/readyz',
    open: true,
    handler: (deps: Pick<AppDeps, 'readiness'>) => async (ctx) => {
      const results = await Promise.all(
        Object.entries(deps.readiness).map(async ([name, check]) => {
          try {
            await withTimeout(check(), CHECK_TIMEOUT_MS);
            return [name, { status: 'ok' }] as const;
          } catch (err) {
            return [name, { status: 'unavailable', detail: err instanceof Error ? err.message : String(err) }] as const;
          }
        }),
      );
      const checks = Object.fromEntries(results);
      const down = results.filter(([, v]) => v.status !== 'ok').map(([k]) => k);
      ctx.status = down.length === 0 ? 200 : 503;
      ctx.body =
        down.length === 0
          ? { status: 'ready', checks }
          : { status: 'unavailable', code: 'service_unavailable', detail: `Not reachable: ${down.join(', ')}.`, checks };
    },
    openapi: {
      operationId: 'readiness',
      tags: ['operations'],
      security: [],
      responses: {
        '200': json({ type: 'object', properties: { status: { const: 'ready' }, checks: { type: 'object' } } }, 'Every dependency answers.'),
        '503': json({ type: 'object', properties: { status: { const: 'unavailable' }, code: { type: 'string', enum: codesOf('service_unavailable') }, detail: { type: 'string' }, checks: { type: 'object' } } }, 'A dependency does not answer.'),
      },
    },
  }),
  operation({
    method: 'get',
    path: '/metrics',
    open: true,
    handler: (deps: Pick<AppDeps, 'config' | 'metrics'>) => async (ctx) => {
      if (!metricsAllowed(deps.config.metrics.token, ctx)) {
        throw new HttpError('authentication_failed', 'The metrics need METRICS_TOKEN as a Bearer token, or a client on this host.', {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      }
      ctx.set('Content-Type', deps.metrics.registry.contentType);
      ctx.body = await deps.metrics.registry.metrics();
    },
    openapi: {
      operationId: 'metrics',
      tags: ['operations'],
      security: [],
      description:
        'Prometheus text format: HTTP requests and latencies, imports by status (`data_import_imports{status}`), the outbox backlog, customer e-mails by delivery state (`data_import_customer_emails{status}`: QUEUED, SENT, BOUNCED, FAILED, SKIPPED; docs/customer-emails.md).',
      responses: {
        '200': { description: 'Prometheus metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
        '401': { $ref: '#/components/responses/NotAuthenticated' },
      },
    },
  }),
];
