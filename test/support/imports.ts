import { eventually, Stack } from './stack';
import { uniqueAccount } from './fixtures';

/**
 * Imports the example account under `external` for DEMO_ENERGY through the API (a dry run with
 * `envelope`) and waits for PROCESSED (DRY_RUN_SUCCEEDED); returns the status record.
 */
export async function importThroughApi(s: Pick<Stack, 'request'>, external: string, envelope?: { is_dry_run: boolean }): Promise<{ kraken_identifier: string }> {
  const payload = uniqueAccount(external);
  const res = await s
    .request()
    .post('/v2/data-import/accounts/')
    .send(envelope ? { payload, task_params: envelope } : payload);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  const done = envelope ? 'DRY_RUN_SUCCEEDED' : 'PROCESSED';
  return eventually(async () => {
    const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`);
    return r.body.status === done ? r.body : undefined;
  });
}
