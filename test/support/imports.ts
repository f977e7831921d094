import request from 'supertest';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { eventually } from './stack';
import { uniqueAccount } from './fixtures';

/**
 * A stand-in for the real authentication: the caller's grant is the `x-test-suppliers` header
 * (comma-separated), else `defaultGrant`.
 */
export function grantFromHeader(defaultGrant = 'DEMO_ENERGY'): Middleware {
  return (ctx, next) => {
    const grant = ctx.get('x-test-suppliers') || defaultGrant;
    ctx.state.principal = { organisation: 'test-org', keyId: 'key-1', suppliers: new Set(grant.split(',')) };
    return next();
  };
}

/**
 * Imports the example account under `external` for DEMO_ENERGY through the API (a dry run with
 * `envelope`) and waits for PROCESSED (DRY_RUN_SUCCEEDED); returns the status record.
 */
export async function importThroughApi(app: Koa, external: string, envelope?: { is_dry_run: boolean }): Promise<{ kraken_identifier: string }> {
  const payload = uniqueAccount(external);
  const res = await request(app.callback())
    .post('/v2/data-import/accounts/')
    .send(envelope ? { payload, task_params: envelope } : payload);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  const done = envelope ? 'DRY_RUN_SUCCEEDED' : 'PROCESSED';
  return eventually(async () => {
    const r = await request(app.callback()).get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`);
    return r.body.status === done ? r.body : undefined;
  });
}
