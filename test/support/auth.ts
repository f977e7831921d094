import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { AuthStore, createOrganisation, dbAuthStore, grantSupplier, issueApiKey } from '../../auth/store';
import { createTokenService } from '../../auth/tokens';
import type { Config } from '../../lib/config';

/**
 * The real authentication storage, plus grants PostgreSQL cannot hold: a grant of a supplier that
 * does not exist (the tests of "unknown supplier answers like one outside the grant"). Passed to
 * createApp as its `authStore`, like production's dbAuthStore.
 */
export interface TestAuth {
  store: AuthStore;
  /** A fresh organisation granted exactly `suppliers`: its API key and the `Authorization` header of a token. */
  issue(...suppliers: string[]): Promise<{ organisation: string; keyId: string; apiKey: string; header: { Authorization: string } }>;
}

export function testAuth(db: Knex, config: Pick<Config, 'auth'>): TestAuth {
  const real = dbAuthStore(db);
  const unknownGrants = new Map<string, string[]>();
  const store: AuthStore = {
    ...real,
    async findKeyGrant(keyId, family) {
      const grant = await real.findKeyGrant(keyId, family);
      const extra = unknownGrants.get(keyId);
      return grant && extra ? { ...grant, suppliers: [...grant.suppliers, ...extra] } : grant;
    },
  };
  const tokens = createTokenService(store, config.auth);
  return {
    store,
    async issue(...suppliers) {
      const org = `TEST_ORG_${crypto.randomBytes(4).toString('hex')}`;
      await createOrganisation(db, org);
      const known = new Set((await db('import_suppliers').whereIn('code', suppliers).select('code')).map((r: { code: string }) => r.code));
      for (const s of suppliers) if (known.has(s)) await grantSupplier(db, org, s);
      const key = await issueApiKey(db, org);
      const unknown = suppliers.filter((s) => !known.has(s));
      if (unknown.length) unknownGrants.set(key.id, unknown);
      const { token } = await tokens.obtainWithApiKey(key.key);
      return { organisation: org, keyId: key.id, apiKey: key.key, header: { Authorization: `Token ${token}` } };
    },
  };
}
