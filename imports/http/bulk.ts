import type { Context } from 'koa';
import type { Knex } from 'knex';
import { isStorableText } from '../../account/storableText';
import { canAccessSupplier } from '../../http/principal';
import { bodyChecker } from '../../http/validation';
import { findProcesses, toApiRecord, type ImportProcess } from '../store';
import type { Static } from '@sinclair/typebox';
import { StatusesRequestSchema } from './schemas';

/** 400 `validation_error` with every issue of the body (the codes of docs/spec/RULES.md). */
const checkBulkBody = bodyChecker<Static<typeof StatusesRequestSchema>>(StatusesRequestSchema);


/**
 * The bulk operations' answer (statuses, digests): each requested number once, in the order of the
 * request; a number with an import process answers its status record plus its number (and what
 * `more` adds), the others are listed in not_found. A supplier outside the grant is one with no
 * import process; so is a number with a NUL byte, which is not sent to the query (and, with
 * `unstorableSupplierIsUnknown`, a supplier code with one: else the query answers 400 `invalid`).
 */
export async function bulkAnswer<T>(
  db: Knex,
  ctx: Context,
  more: (found: ImportProcess[], supplier: string) => Promise<(p: ImportProcess) => T>,
  opts: { unstorableSupplierIsUnknown: boolean },
): Promise<{ results: (Record<string, unknown> & T)[]; not_found: string[] }> {
  const b = checkBulkBody(ctx.request.body);
  ctx.state.logContext = { importSupplier: b.import_supplier };
  const numbers = [...new Set(b.external_account_numbers)];
  const granted = canAccessSupplier(ctx, b.import_supplier) && (!opts.unstorableSupplierIsUnknown || isStorableText(b.import_supplier));
  const found = granted ? await findProcesses(db, b.import_supplier, numbers.filter(isStorableText)) : [];
  const extra = await more(found, b.import_supplier);
  const byNumber = new Map(found.map((p) => [p.externalAccountNumber, p]));
  const results: (Record<string, unknown> & T)[] = [];
  const notFound: string[] = [];
  for (const n of numbers) {
    const p = byNumber.get(n);
    if (p) results.push({ external_account_number: n, ...toApiRecord(p), ...extra(p) });
    else notFound.push(n);
  }
  return { results, not_found: notFound };
}
