import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { isLoopback } from '../lib/config';
import type { Logger } from '../lib/logger';
import { errorHandler } from '../http/middleware/errors';
import { securityHeaders } from '../http/middleware/observe';
import { HttpError, notFound } from '../http/errors';
import { findProcess } from '../imports';
import { opsTokenAuth } from './auth';
import { buildOpsOpenApiDocument } from './openapi';
import { importsWithError, supplierCodes } from './store';
import { affectedItem, buildSummary, buildTranche, importRecord, TemporalLinks } from './summary';
import { jsonBody } from '../http/middleware/jsonBody';
import { jsonResponse } from '../http/middleware/jsonResponse';
import type { JsonLimits } from '../lib/jsonBounds';
import type { DeployStatus } from '../deploys';
import { MAX_TRANCHE_NUMBERS, type Builds } from './schema';

/**
 * The operations page's own listener (OPS_BIND, default 127.0.0.1:8001), started by the API
 * process: the page (plain HTML/JS from ops/page/, uPlot from node_modules, no build step), the
 * JSON behind it and its OpenAPI document. Read-only: every route is a GET, but the progress of a
 * tranche (POST /api/tranche: its account numbers in the body, too many for a URL), which reads.
 */

/** The body of POST /api/tranche: 100,000 numbers of up to 128 characters, quoted. */
const TRANCHE_BODY_LIMIT = 16 * 1024 * 1024;
/**
 * What that body may parse to, from its shape (an object of two fields, one an array of strings):
 * with room for a body slightly off that shape to be answered 400 naming what is wrong; a body of
 * 16 MiB of anything else (millions of empty objects, deep nesting) is refused before it
 * is parsed in the API's process (413 payload_too_large).
 */
const TRANCHE_JSON: JsonLimits = { maxValues: MAX_TRANCHE_NUMBERS + 1_000, maxDepth: 4, maxKeys: 16, minBytesPerValue: 1 };

/** The body of POST /api/tranche, checked (400 validation_error naming what is wrong). */
function trancheBody(body: unknown): { import_supplier: string; external_account_numbers: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError('validation_error', 'The body must be a JSON object.');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => k !== 'import_supplier' && k !== 'external_account_numbers');
  if (unknown.length > 0) throw new HttpError('validation_error', `Unknown field ${unknown[0]}; allowed: import_supplier, external_account_numbers.`);
  if (typeof b.import_supplier !== 'string' || b.import_supplier.length < 1 || b.import_supplier.length > 64) throw new HttpError('validation_error', 'import_supplier must be a string of 1 to 64 characters.');
  const n = b.external_account_numbers;
  if (!Array.isArray(n) || n.length < 1 || n.length > MAX_TRANCHE_NUMBERS || !n.every((x) => typeof x === 'string' && x.length >= 1 && x.length <= 128)) {
    throw new HttpError('validation_error', `external_account_numbers must be an array of 1 to ${MAX_TRANCHE_NUMBERS} strings of 1 to 128 characters.`);
  }
  return { import_supplier: b.import_supplier, external_account_numbers: n as string[] };
}

export interface OpsDeps {
  db: Knex;
  log: Logger;
  temporal: TemporalLinks;
  token?: string;
  /** The worker deployment as Temporal reports it (deploys/status.ts `deployStatus`). */
  deployment: () => Promise<DeployStatus>;
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

type Query = Record<string, string | string[] | undefined>;

/** Query parameters: only the named ones, each at most once (bad input answers 400 validation_error). */
function params(query: Query, allowed: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) {
    if (!allowed.includes(k)) throw new HttpError('validation_error', `Unknown query parameter ${k}; allowed: ${allowed.join(', ')}.`);
    if (Array.isArray(v)) throw new HttpError('validation_error', `Query parameter ${k} given more than once.`);
    out[k] = v;
  }
  return out;
}

function intParam(v: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  if (!/^\d{1,6}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new HttpError('validation_error', `${name} must be an integer from ${min} to ${max}.`);
  }
  return Number(v);
}

async function supplierParam(db: Knex, v: string | undefined): Promise<string | null> {
  if (v === undefined || v === '') return null;
  if (v.length > 64 || !(await supplierCodes(db)).includes(v)) throw notFound(`No import supplier ${v}.`);
  return v;
}

const encodeCursor = (k: [string, string]) => Buffer.from(JSON.stringify(k)).toString('base64url');
function decodeCursor(v: string | undefined): [string, string] | undefined {
  if (v === undefined) return undefined;
  try {
    const k = JSON.parse(Buffer.from(v, 'base64url').toString('utf8'));
    if (Array.isArray(k) && k.length === 2 && k.every((x) => typeof x === 'string')) return k as [string, string];
  } catch {
    /* answered below */
  }
  throw new HttpError('validation_error', 'after must be the `next` of a previous page.');
}

/** The deployment's page in the Temporal Web UI. */
export const deploymentUrl = (t: TemporalLinks, deployment: string) =>
  `${t.uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(t.namespace)}/worker-deployments/${encodeURIComponent(deployment)}`;

export function createOpsApp(deps: OpsDeps): Koa {
  const { db, temporal } = deps;
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
  r.get('/api/summary', async (ctx) => {
    const p = params(ctx.query, ['supplier', 'hours']);
    const hours = intParam(p.hours, 'hours', 1, 72, 6);
    ctx.body = await buildSummary(db, { supplier: await supplierParam(db, p.supplier), hours, temporal });
  });
  // The progress of a tranche: the account numbers of its book (the page reads them from the book
  // the operator picks), counted by import status. A read: nothing is stored.
  r.post('/api/tranche', jsonBody(TRANCHE_BODY_LIMIT, TRANCHE_JSON), async (ctx) => {
    params(ctx.query, []);
    const b = trancheBody(ctx.request.body);
    const supplier = (await supplierParam(db, b.import_supplier))!;
    ctx.body = await buildTranche(db, supplier, b.external_account_numbers);
  });
  r.get('/api/errors', async (ctx) => {
    const p = params(ctx.query, ['supplier', 'code', 'after', 'limit']);
    if (!p.code || p.code.length > 200) throw new HttpError('validation_error', 'code is required (at most 200 characters).');
    const supplier = await supplierParam(db, p.supplier);
    const limit = intParam(p.limit, 'limit', 1, 500, 100);
    const rows = await importsWithError(db, { supplier, code: p.code, after: decodeCursor(p.after), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      code: p.code,
      import_supplier: supplier,
      items: page.map((a) => affectedItem(a, temporal)),
      next: rows.length > limit && last ? encodeCursor([last.importSupplier, last.externalAccountNumber]) : null,
    };
  });
  r.get('/api/builds', async (ctx) => {
    params(ctx.query, []);
    let d: DeployStatus;
    try {
      d = await deps.deployment();
    } catch (err) {
      // Temporal away: the rest of the page reads PostgreSQL and goes on.
      deps.log.warn({ err: String(err) }, 'operations page: the worker deployment could not be read from Temporal');
      throw new HttpError('service_unavailable', `Temporal does not answer: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    const body: Builds = { ...d, temporal_url: deploymentUrl(temporal, d.deployment) };
    ctx.body = body;
  });
  r.get('/api/imports/:supplier/:external', async (ctx) => {
    params(ctx.query, []);
    const p = await findProcess(db, ctx.params.supplier!, ctx.params.external!);
    if (!p) throw notFound('No such import process.');
    ctx.body = importRecord(p, temporal);
  });
  app.use(r.routes());
  app.use(
    r.allowedMethods({
      throw: true,
      methodNotAllowed: () => new HttpError('method_not_allowed', 'The operations page is read-only: GET only (and POST /api/tranche, which reads).'),
      notImplemented: () => new HttpError('method_not_allowed', 'Method not implemented.'),
    }),
  );
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
