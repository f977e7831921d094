import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { Logger } from '../../lib/logger';
import type { Metrics } from '../../lib/metrics';
import { answerFor } from './errors';

/**
 * Request id (honours a sane incoming X-Request-Id), a child logger carrying it, one access-log
 * line per request (no bodies, no query strings with personal data), and the HTTP metrics
 * labelled by the matched route pattern, never the raw path (bounded label cardinality). With
 * tracing on, the request's span is named by that pattern too (`POST /v2/data-import/accounts/`).
 */
export function observe(log: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = requestId;
    // The request's child logger is made when a handler first logs through it: most requests
    // log only their access line, written below through the parent with the request id.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (child ??= log.child({ requestId })),
      set: (v: Logger) => {
        child = v;
      },
    });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // An error thrown below is rendered by errorHandler, outside this middleware: ctx.status is
    // not yet the answer's status then (still Koa's default 404), so record the one it will be.
    let status: number | undefined;
    try {
      await next();
      status = ctx.status;
    } catch (err) {
      status = answerFor(err, ctx.method).status;
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const labels = { route: String(route), method: ctx.method, status: String(status ?? ctx.status) };
      const rpc = getRPCMetadata(context.active());
      if (rpc?.type === RPCType.HTTP && route !== 'unmatched') rpc.route = labels.route;
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      if (log.isLevelEnabled('info')) {
        (child ?? log).info(
          { ...(child ? {} : { requestId }), method: ctx.method, route: labels.route, status: Number(labels.status), ms: Math.round(seconds * 1e4) / 10, ...ctx.state.logContext },
          'request',
        );
      }
    }
  };
}

/** Conservative security headers for a JSON API. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    await next();
  };
}
