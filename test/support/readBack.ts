import { setKeyRevealsBankDetails } from '../../auth/store';
import type { Stack } from './stack';

/**
 * `GET …/account/` of `external` (DEMO_ENERGY) in clear: bank details are masked otherwise
 * (issue 47), so a test that compares the read-back with what it sent asks with
 * `?reveal=bank_details` and a key given the permission (one per stack, made on first use; `stack`
 * is read then, so a describe block may call this before its beforeAll).
 */
export function clearReadBack(stack: () => Stack): (external: string) => Promise<Record<string, unknown>> {
  let header: { Authorization: string } | undefined;
  return async (external) => {
    const s = stack();
    if (!header) {
      const k = await s.authKey('DEMO_ENERGY');
      await setKeyRevealsBankDetails(s.t.db, k.keyId, true);
      header = k.header;
    }
    return (await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/account/?reveal=bank_details`).set(header)).body as Record<string, unknown>;
  };
}
