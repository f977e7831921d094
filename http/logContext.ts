import type { Context } from 'koa';

/**
 * The account a request body names, for the request's log line (http/middleware/observe.ts): the
 * supplier and external account number of an Account, or of the envelope's `payload`, as far as
 * they are strings. The body is not checked here; the operation does that.
 */
export function accountLogContext(ctx: Context, body: unknown): void {
  const acc = body && typeof body === 'object' ? ((body as { payload?: unknown }).payload ?? body) : undefined;
  if (acc && typeof acc === 'object') {
    const a = acc as Record<string, unknown>;
    ctx.state.logContext = {
      importSupplier: typeof a.import_supplier === 'string' ? a.import_supplier : undefined,
      externalAccountNumber: typeof a.external_account_number === 'string' ? a.external_account_number : undefined,
    };
  }
}
