import type { Context, Middleware } from 'koa';

/**
 * Who is calling: set by the authentication middleware. `suppliers` is the organisation's grant;
 * an operation on any other supplier behaves as if the supplier did not exist.
 */
export interface Principal {
  organisation: string;
  keyId: string;
  suppliers: ReadonlySet<string>;
}

export function principalOf(ctx: Context): Principal | undefined {
  return ctx.state.principal as Principal | undefined;
}

/** True when the caller may see this supplier (no authentication configured: everyone may). */
export function canAccessSupplier(ctx: Context, supplier: string): boolean {
  if (ctx.state.authDisabled === true) return true;
  const p = principalOf(ctx);
  return !!p && p.suppliers.has(supplier);
}

/**
 * The authentication a data-import router runs first: the configured one, or (in tests of the
 * import path that build the app without it) a marker that lets every supplier through.
 */
export function authenticated(authenticate: Middleware | undefined): Middleware {
  return (
    authenticate ??
    ((ctx, next) => {
      ctx.state.authDisabled = true;
      return next();
    })
  );
}
