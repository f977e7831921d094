import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from '../lib/config';
import { isLoopback } from '../lib/config';
import { errorHandler } from '../http/middleware/errors';
import { securityHeaders } from '../http/middleware/observe';
import { HttpError } from '../http/errors';
import { jsonBody } from '../http/middleware/jsonBody';
import { jsonResponse } from '../http/middleware/jsonResponse';
import { allowedMethods } from '../http/middleware/allowedMethods';
import { mountOperations } from '../http/mount';
import { opsTokenAuth } from './auth';
import { buildOpsOpenApiDocument } from './openapi';
import { OPS_OPERATIONS, type OpsRouteDeps } from './operations';

/**
 * The operations page's own listener (OPS_BIND, default 127.0.0.1:8001), started by the API
 * process: the page (plain HTML/JS from ops/page/, uPlot from node_modules, no build step), the
 * JSON behind it and its OpenAPI document. Read-only: every route is a GET, but the progress of a
 * tranche (POST /api/tranche: its account numbers in the body, too many for a URL), which reads.
 * The JSON routes are Operations (ops/operations.ts) mounted as the API's are (http/mount.ts):
 * bad input answers on the API's error path, with its codes and shapes.
 */

export interface OpsDeps extends OpsRouteDeps {
  token?: string;
}

/** The page's files: a fixed list, so no request path ever reaches the file system. */
function assetFiles(): Record<string, { file: string; type: string }> {
  const pageDir = [path.join(__dirname, 'page'), path.join(__dirname, '..', '..', 'ops', 'page')].find((d) => fs.existsSync(d));
  if (!pageDir) throw new Error('ops/page not found beside the operations server');
  const uplot = path.dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
  return {
    '/': { file: path.join(pageDir, 'index.html'), type: 'text/html; charset=utf-8' },
    '/assets/ops.js': { file: path.join(pageDir, 'ops.js'), type: 'text/javascript; charset=utf-8' },
    '/assets/ops.css': { file: path.join(pageDir, 'ops.css'), type: 'text/css; charset=utf-8' },
    '/assets/uPlot.iife.min.js': { file: path.join(uplot, 'uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
    '/assets/uPlot.min.css': { file: path.join(uplot, 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
  };
}

export function createOpsApp(deps: OpsDeps): Koa {
  const assets = assetFiles();
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(errorHandler(deps.log));
  app.use(jsonResponse());
  app.use(securityHeaders());
  app.use((ctx, next) => {
    // Unlike the JSON API, a page: it loads its own files (and uPlot sets element styles from script).
    ctx.set('Content-Security-Policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
    return next();
  });
  app.use(loopbackHost(deps.token));
  app.use(opsTokenAuth(deps.token));

  const r = new Router();
  for (const [route, asset] of Object.entries(assets)) {
    r.get(route, async (ctx) => {
      ctx.type = asset.type;
      ctx.body = await fs.promises.readFile(asset.file);
    });
  }
  r.get('/openapi.json', (ctx) => {
    ctx.body = buildOpsOpenApiDocument();
  });
  // Every body the page's operations read has its own bounds (POST /api/tranche: 16 MiB, shaped
  // JSON bounds); the listener has no default and no budget (one operator's page).
  mountOperations(r, OPS_OPERATIONS, deps, {
    body: (own) => {
      if (!own) throw new Error('an operation of the operations page reads a body without its own bounds');
      return jsonBody(own.limitBytes, own.json);
    },
  });
  app.use(r.routes());
  app.use(allowedMethods(r));
  return app;
}

/**
 * Without an operator token (the page on loopback, lib/config.ts) the page answers only a `Host`
 * naming loopback: a page elsewhere in the operator's browser that rebinds its own name to
 * 127.0.0.1 (DNS rebinding) sends its own name as Host and is answered 404, so it cannot read
 * every supplier's figures (issue 39). With a token, the token is what protects the page.
 */
function loopbackHost(token: string | undefined): Koa.Middleware {
  if (token) return (_ctx, next) => next();
  return (ctx, next) => {
    const host = ctx.get('host').toLowerCase();
    const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.split(':')[0]!;
    if (!isLoopback(name)) throw new HttpError('not_found', 'The operations page answers only on its loopback address.');
    return next();
  };
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

/** Starts the listener of config.ops.bind (null when OPS_BIND=off) and says how it is protected. */
export async function startOpsServer(config: Config, deps: Omit<OpsDeps, 'temporal' | 'token'>): Promise<OpsServer | null> {
  const bind = config.ops.bind;
  if (!bind) {
    deps.log.info('operations page off (OPS_BIND=off)');
    return null;
  }
  const app = createOpsApp({
    ...deps,
    temporal: { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace },
    token: config.ops.token,
  });
  const server = http.createServer(app.callback());
  server.headersTimeout = 20_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(bind.port, bind.host, resolve);
    });
  } catch (err) {
    // Several API replicas on one machine share OPS_BIND: the first one serves the page (it is
    // read-only and reads only the database), the others go on without it.
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    deps.log.warn({ bind: `${bind.host}:${bind.port}` }, 'operations page not started here: OPS_BIND is already in use (another API replica serves it)');
    return null;
  }
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : bind.port;
  const host = bind.host.includes(':') ? `[${bind.host}]` : bind.host;
  const url = `http://${host}:${port}/`;
  const protection = config.ops.token
    ? `operator token required (OPS_TOKEN)${isLoopback(bind.host) ? '' : `: bound beyond loopback (${bind.host}), reachable from other machines`}`
    : 'loopback only, no token';
  deps.log.info({ url, protection }, `operations page listening on ${url} (${protection})`);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
