import type { Context } from 'koa';

/**
 * Who is calling: set by the authentication middleware. `suppliers` is the organisation's grant;
 * an operation on any other supplier behaves as if the supplier did not exist.
 */
export interface Principal {
  organisation: string;
  keyId: string;
  suppliers: ReadonlySet<string>;
  /** The key may read bank details in clear (`?reveal=bank_details`, account/bankDetails.ts). */
  revealBankDetails?: boolean;
}

export function principalOf(ctx: Context): Principal | undefined {
  return ctx.state.principal as Principal | undefined;
}

/** True when the authenticated caller's grant holds this supplier. */
export function canAccessSupplier(ctx: Context, supplier: string): boolean {
  const p = principalOf(ctx);
  return !!p && p.suppliers.has(supplier);
}
