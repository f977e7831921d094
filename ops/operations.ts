import { Type, type Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { Context } from 'koa';
import type { Logger } from '../lib/logger';
import type { JsonLimits } from '../lib/jsonBounds';
import { HttpError, notFound } from '../http/errors';
import { json, ref } from '../http/openapi';
import { operation, type Operation } from '../http/operation';
import { bodyChecker, NO_QUERY, QUERY_FAILED, ValidationError } from '../http/validation';
import { findProcess, importsWithError } from '../imports';
import { supplierCodes } from '../suppliers';
import type { DeployStatus } from '../deploys';
import { affectedItem, buildSummary, buildTranche, importRecord, type TemporalLinks } from './summary';
import { MAX_TRANCHE_NUMBERS, TrancheRequestSchema, type Builds } from './schema';

/**
 * The JSON routes of the operations page (ops/server.ts), each an Operation (http/operation.ts)
 * as the API's are: its method and path, its query schema (checked by the shared checker before
 * the handler: 400 `validation_error` with every issue, `{detail, code, errors: [{detail, code,
 * attr}]}`), its body and bounds, its handler and its part of the listener's OpenAPI document
 * (ops/openapi.ts, built by the shared builder). Bad input is answered by the one error
 * middleware (http/middleware/errors.ts) with the API's codes.
 */

/** What the page's handlers need. */
export interface OpsRouteDeps {
  db: Knex;
  log: Logger;
  temporal: TemporalLinks;
  /** The worker deployment as Temporal reports it (deploys/status.ts `deployStatus`). */
  deployment: () => Promise<DeployStatus>;
}

/** The body of POST /api/tranche: 100,000 numbers of up to 128 characters, quoted. */
const TRANCHE_BODY_LIMIT = 16 * 1024 * 1024;
/**
 * What that body may parse to, from its shape (an object of two fields, one an array of strings):
 * with room for a body slightly off that shape to be answered 400 naming what is wrong; a body of
 * 16 MiB of anything else (millions of empty objects, deep nesting) is refused before it
 * is parsed in the API's process (413 payload_too_large).
 */
const TRANCHE_JSON: JsonLimits = { maxValues: MAX_TRANCHE_NUMBERS + 1_000, maxDepth: 4, maxKeys: 16, minBytesPerValue: 1 };

const checkTrancheBody = bodyChecker<Static<typeof TrancheRequestSchema>>(TrancheRequestSchema);

const Supplier = Type.String({ maxLength: 64, description: 'An import supplier code; absent (or empty) = all suppliers.' });
const SummaryQuery = Type.Object(
  { supplier: Type.Optional(Supplier), hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 72, default: 6, description: 'Width of the time series (default 6).' })) },
  { additionalProperties: false },
);
const ErrorsQuery = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 200, description: 'The error code.' }),
    supplier: Type.Optional(Supplier),
    after: Type.Optional(Type.String({ description: '`next` of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

/** The checked query of this request (http/mount.ts). */
const queryOf = <T>(ctx: Context) => ctx.state.query as T;

async function supplierParam(db: Knex, v: string | undefined): Promise<string | null> {
  if (v === undefined || v === '') return null;
  if (!(await supplierCodes(db)).includes(v)) throw notFound(`No import supplier ${v}.`);
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
  throw new ValidationError([{ detail: 'after must be the `next` of a previous page.', code: 'invalid', attr: 'after' }], QUERY_FAILED);
}

/** The deployment's page in the Temporal Web UI. */
export const deploymentUrl = (t: TemporalLinks, deployment: string) =>
  `${t.uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(t.namespace)}/worker-deployments/${encodeURIComponent(deployment)}`;

const BAD_QUERY = json(ref('QueryValidationFailed'), 'A bad or unknown query parameter, or one given twice (`validation_error`, with every issue: `unknown_field`, `invalid`, `min_value`, `max_value`, `max_length`, `required`, `blank`).');
const NOT_FOUND = json(ref('OpsError'), 'Unknown import supplier or import (`not_found`).');
const NOT_AUTHENTICATED = { $ref: '#/components/responses/NotAuthenticated' };
const METHOD_NOT_ALLOWED = json(ref('OpsError'), 'The path exists, not with this method (`method_not_allowed`, with `Allow`).');
const errors = { '401': NOT_AUTHENTICATED, '404': NOT_FOUND, '400': BAD_QUERY, '405': METHOD_NOT_ALLOWED };

const summary = operation({
  method: 'get',
  path: '/api/summary',
  query: SummaryQuery,
  handler: (deps: OpsRouteDeps) => async (ctx) => {
    const q = queryOf<Static<typeof SummaryQuery>>(ctx);
    ctx.body = await buildSummary(deps.db, { supplier: await supplierParam(deps.db, q.supplier), hours: q.hours ?? 6, temporal: deps.temporal });
  },
  openapi: {
    operationId: 'opsSummary',
    summary: 'Counts, rate and ETA, latency, error codes, registrations, e-mails and the outbox',
    responses: { '200': json(ref('OpsSummary'), 'The summary.'), ...errors },
  },
});

// The progress of a tranche: the account numbers of its book (the page reads them from the book
// the operator picks), counted by import status. A read: nothing is stored.
const tranche = operation({
  method: 'post',
  path: '/api/tranche',
  query: NO_QUERY,
  body: { limitBytes: TRANCHE_BODY_LIMIT, json: TRANCHE_JSON },
  handler: (deps: OpsRouteDeps) => async (ctx) => {
    const b = checkTrancheBody(ctx.request.body);
    const supplier = (await supplierParam(deps.db, b.import_supplier))!;
    ctx.body = await buildTranche(deps.db, supplier, b.external_account_numbers);
  },
  openapi: {
    operationId: 'opsTranche',
    summary: "The progress of one tranche: the account numbers of its book, counted by import status (not started: no import process yet), beside the supplier's totals of /api/summary. A read: nothing is stored.",
    requestBody: { required: true, content: { 'application/json': { schema: ref('OpsTrancheRequest') } } },
    responses: {
      '200': json(ref('OpsTranche'), 'The tranche by status.'),
      ...errors,
      '400': json(
        { oneOf: [ref('QueryValidationFailed'), ref('ParseError')] },
        'A body of the wrong shape, or a query parameter (`validation_error` with every issue: `unknown_field`, `required`, `invalid` for a wrong type, `blank`, `max_length`); an unreadable body or none (`parse_error`).',
      ),
      '413': json(ref('OpsError'), 'A body over 16 MiB, or one that parses to far more values, deeper nesting or more members of one object than the tranche\'s shape allows (`payload_too_large`), checked before it is parsed.'),
      '415': json(ref('OpsError'), 'A body that is not application/json (`unsupported_media_type`).'),
    },
  },
});

const affectedImports = operation({
  method: 'get',
  path: '/api/errors',
  query: ErrorsQuery,
  handler: (deps: OpsRouteDeps) => async (ctx) => {
    const q = queryOf<Static<typeof ErrorsQuery>>(ctx);
    const after = decodeCursor(q.after);
    const supplier = await supplierParam(deps.db, q.supplier);
    const limit = q.limit ?? 100;
    const rows = await importsWithError(deps.db, { supplier, code: q.code, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      code: q.code,
      import_supplier: supplier,
      items: page.map((a) => affectedItem(a, deps.temporal)),
      next: rows.length > limit && last ? encodeCursor([last.importSupplier, last.externalAccountNumber]) : null,
    };
  },
  openapi: {
    operationId: 'opsAffectedImports',
    summary: 'The ERRORED / DRY_RUN_ERRORED imports with one error code, in account order, a page at a time',
    responses: { '200': json(ref('OpsAffectedImports'), 'One page of affected imports.'), ...errors },
  },
});

const builds = operation({
  method: 'get',
  path: '/api/builds',
  query: NO_QUERY,
  handler: (deps: OpsRouteDeps) => async (ctx) => {
    let d: DeployStatus;
    try {
      d = await deps.deployment();
    } catch (err) {
      // Temporal away: the rest of the page reads PostgreSQL and goes on.
      deps.log.warn({ err: String(err) }, 'operations page: the worker deployment could not be read from Temporal');
      throw new HttpError('service_unavailable', `Temporal does not answer: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    const body: Builds = { ...d, temporal_url: deploymentUrl(deps.temporal, d.deployment) };
    ctx.body = body;
  },
  openapi: {
    operationId: 'opsBuilds',
    summary: 'Which builds of the worker run imports: the current build (and a ramp), every build with its status, workers and open imports (docs/deploys.md)',
    responses: {
      '200': json(ref('OpsBuilds'), 'The worker deployment.'),
      '401': NOT_AUTHENTICATED,
      '400': BAD_QUERY,
      '405': METHOD_NOT_ALLOWED,
      '503': json(ref('OpsError'), 'Temporal does not answer (`service_unavailable`).'),
    },
  },
});

const record = operation({
  method: 'get',
  path: '/api/imports/{supplier}/{external_account_number}',
  route: '/api/imports/:supplier/:external',
  query: NO_QUERY,
  handler: (deps: OpsRouteDeps) => async (ctx) => {
    const p = await findProcess(deps.db, ctx.params.supplier!, ctx.params.external!);
    if (!p) throw notFound('No such import process.');
    ctx.body = importRecord(p, deps.temporal);
  },
  openapi: {
    operationId: 'opsImportRecord',
    summary: 'The status record of one import, with its links (no error detail: it may quote personal data)',
    parameters: [
      { name: 'supplier', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'external_account_number', in: 'path', required: true, schema: { type: 'string' } },
    ],
    responses: { '200': json(ref('OpsImportRecord'), 'The record.'), ...errors },
  },
});

/** The page's JSON operations, in the OpenAPI document's order: the registry ops/server.ts mounts and ops/openapi.ts documents. */
export const OPS_OPERATIONS: Operation<OpsRouteDeps>[] = [summary, tranche, affectedImports, builds, record];
