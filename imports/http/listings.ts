import { pipeline } from 'node:stream';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import { notFound } from '../../http/errors';
import { common, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { getSupplier } from '../../suppliers';
import { jsonArrayStream } from '../listing/jsonArray';
import { decodeCursor, encodeCursor, ListingQuery } from '../listing/params';
import { type Listing, platformItem, pagedPlatformRows, platformPage, type PlatformRow } from '../listing/store';

/** Each listing: its path segment (the platform's paths), operationId and summary. */
const LISTINGS: [Listing, string, string, string][] = [
  ['all', 'all-account-import-processes', 'listAllImportProcesses', 'Every import process of the supplier, pending or imported.'],
  ['pending', 'pending-account-import-processes', 'listPendingImportProcesses', 'Import processes without an account yet (every status but PROCESSED).'],
  ['imported', 'imported-account-import-processes', 'listImportedImportProcesses', 'Import processes whose account has been created (PROCESSED).'],
];

const PLATFORM_IMPORT_PROCESS = {
  PlatformImportProcess: {
    type: 'object',
    description: "The platform's ImportProcess item.",
    required: ['external_account_number', 'kraken_account_number', 'account_created_at'],
    additionalProperties: false,
    properties: {
      external_account_number: { type: 'string', maxLength: 128 },
      kraken_account_number: { type: ['string', 'null'], description: 'The platform account number; null while pending.' },
      account_created_at: { type: ['string', 'null'], format: 'date-time', description: 'When the account was created; null while pending.' },
    },
  },
};

/** A listing's handler: one page (`limit`), or the whole listing streamed. */
function listingHandler(listing: Listing, deps: { db: Knex; log: Logger }) {
  const visibleSupplier = async (ctx: Context, supplier: string) => canAccessSupplier(ctx, supplier) && (await getSupplier(deps.db, supplier)) !== null;
  return async (ctx: Context) => {
    const { supplier } = ctx.params as { supplier: string };
    ctx.state.logContext = { importSupplier: supplier };
    // Checked before the handler (the operation's `query`): `after`, when given, is a cursor decodeCursor reads.
    const params = ctx.state.query as ListingQuery;
    if (!(await visibleSupplier(ctx, supplier))) throw notFound('No import supplier with this code.');
    const filter = { importSupplier: supplier, listing, afterId: params.after === undefined ? undefined : decodeCursor(params.after)! };

    if (params.limit !== undefined) {
      // A page: one row more than asked tells whether there is a next page.
      const rows = await platformPage(deps.db, { ...filter, limit: params.limit + 1 });
      const page = rows.slice(0, params.limit);
      if (rows.length > params.limit) {
        const next = `${ctx.path}?limit=${params.limit}&after=${encodeCursor(page[page.length - 1]!.id)}`;
        ctx.set('Link', `<${next}>; rel="next"`);
      }
      ctx.body = page.map((r) => r.item);
      return;
    }

    // The whole listing, streamed in keyset pages: memory stays bounded however long the book,
    // and a client that does not read holds no database connection (pagedPlatformRows).
    // A failure after the first byte cannot become an error response any more: the stream is
    // destroyed, the connection cut, and the client sees a truncated (invalid) JSON array.
    const rows = pagedPlatformRows(deps.db, filter);
    const body = jsonArrayStream((row: PlatformRow) => platformItem(row));
    pipeline(rows, body, (err) => {
      if (err && err.name !== 'AbortError' && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        deps.log.error({ err, importSupplier: supplier, listing }, 'listing stream failed');
      }
    });
    ctx.type = 'application/json';
    ctx.body = body;
  };
}

/**
 * The platform's three listings of a supplier's imports (docs/api.md, "The platform's other
 * data-import operations"): all, pending, imported. A supplier outside the caller's grant answers
 * like an unknown one.
 */
export const listingOperations = LISTINGS.map(([listing, segment, operationId, summary]) =>
  operation({
    method: 'get',
    path: `/v1/data-import/${segment}/{import_supplier_code}/`,
    query: ListingQuery,
    handler: (deps: { db: Knex; log: Logger }) => listingHandler(listing, deps),
    schemas: PLATFORM_IMPORT_PROCESS,
    openapi: {
      operationId,
      tags: ['platform'],
      summary,
      description:
        'Without parameters: the complete listing as one JSON array, streamed in id order from a database cursor (bounded memory however long the book). With `limit`: one page, and `Link: <…>; rel="next"` when there is more; pass its `after` on.',
      security,
      parameters: [supplierParam('import_supplier_code')],
      responses: {
        '200': json({ type: 'array', items: ref('PlatformImportProcess') }, 'The import processes, oldest first.', {
          Link: { description: 'With `limit`, when there is a next page: `<path?limit=n&after=cursor>; rel="next"`.', schema: { type: 'string' } },
        }),
        '400': json(ref('QueryValidationFailed'), 'A malformed or unknown query parameter (`validation_error`).'),
        '404': json(ref('NotFound'), 'No such import supplier, or the supplier is outside your grant.'),
        ...common(false),
      },
    },
  }),
);
