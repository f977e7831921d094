import type { Context } from 'koa';
import { canAccessSupplier } from '../../http/principal';
import { importService, type ImportRequestDeps } from '../requestService';

/** What the import operations' handlers are given (the import service's dependencies). */
export type ImportDeps = ImportRequestDeps;

/** The import service of this request, for its caller: its log and the suppliers of its grant. */
export function importServiceOf(deps: ImportDeps, ctx: Context) {
  return importService(deps, { log: ctx.state.log, mayAccess: (code) => canAccessSupplier(ctx, code) });
}
