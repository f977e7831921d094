import Router from '@koa/router';
import type { Context } from 'koa';
import { pipeline } from 'node:stream';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { RouteDeps } from '../http/deps';
import { HttpError, notFound } from '../http/errors';
import { canAccessSupplier } from '../http/principal';
import { getSupplier } from '../suppliers/store';
import { jsonArrayStream } from './listing/jsonArray';
import { encodeCursor, parseListingParams } from './listing/params';
import { type Listing, platformItem, pagedPlatformRows, platformPage, type PlatformRow } from './listing/store';
import { meterPointStatuses } from './meterPointStatuses/statuses';
import { rejectQueryParameters } from './noQuery';

/** Path segment of each listing (the platform's paths). */
const LISTING_PATHS: Record<Listing, string> = {
  all: 'all-account-import-processes',
  pending: 'pending-account-import-processes',
  imported: 'imported-account-import-processes',
};

/**
 * The platform's query operations on a supplier's imports (docs/api.md, "The platform's other data-import operations"): the three listings and the
 * meter point statuses of an imported account. Same authentication and grants as every
 * data-import operation: a supplier outside the caller's grant answers like an unknown one.
 */
export function platformRouter(deps: Pick<RouteDeps, 'authenticate'> & { db: Knex; log: Logger }): Router {
  const r = new Router({ prefix: '/v1/data-import' });
  r.use(deps.authenticate);

  const visibleSupplier = async (ctx: Context, supplier: string) =>
    canAccessSupplier(ctx, supplier) && (await getSupplier(deps.db, supplier)) !== null;

  for (const listing of Object.keys(LISTING_PATHS) as Listing[]) {
    r.get(`/${LISTING_PATHS[listing]}/:supplier/`, async (ctx) => {
      const { supplier } = ctx.params as { supplier: string };
      ctx.state.logContext = { importSupplier: supplier };
      const params = parseListingParams(ctx.query);
      if (!params.ok) throw new HttpError('validation_error', 'The query parameters failed validation.', { errors: params.errors });
      if (!(await visibleSupplier(ctx, supplier))) throw notFound('No import supplier with this code.');
      const filter = { importSupplier: supplier, listing, afterId: params.afterId };

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
    });
  }

  r.get('/meterpoint-statuses-for-account/:supplier/:external/', async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    rejectQueryParameters(ctx);
    const items = canAccessSupplier(ctx, supplier) ? await meterPointStatuses(deps.db, supplier, external) : null;
    if (!items || items.length === 0) {
      // The platform's 404 carries `error`; ours adds it beside the usual detail and code.
      const detail = `No meterpoints found for ${external}.`;
      throw new HttpError('not_found', detail, { error: detail });
    }
    ctx.body = items;
  });

  return r;
}
