import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/db';
import { createSupplier } from '../../suppliers/store';
import {
  AuthStoreError,
  createOrganisation,
  findKeyGrant,
  grantSupplier,
  issueApiKey,
  listApiKeys,
  listOrganisations,
  revokeApiKey,
  revokeSupplier,
} from '../../auth/store';
import { seedDemo } from '../../scripts/seedDemo';

async function storeErrorCode(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuthStoreError);
  return (err as AuthStoreError).code;
}

describe('the auth store', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await createSupplier(t.db, 'ALPHA_ENERGY');
    await createSupplier(t.db, 'BETA_ENERGY');
  });
  afterAll(async () => {
    await t.drop();
  });

  it('creates an organisation once and lists it with its grants', async () => {
    expect(await createOrganisation(t.db, 'ACME')).toBe(true);
    expect(await createOrganisation(t.db, 'ACME')).toBe(false);
    await grantSupplier(t.db, 'ACME', 'BETA_ENERGY');
    await grantSupplier(t.db, 'ACME', 'ALPHA_ENERGY');
    await grantSupplier(t.db, 'ACME', 'ALPHA_ENERGY');
    const orgs = await listOrganisations(t.db);
    expect(orgs.find((o) => o.name === 'ACME')).toEqual({ name: 'ACME', suppliers: ['ALPHA_ENERGY', 'BETA_ENERGY'], createdAt: expect.any(Date) });
    expect(await revokeSupplier(t.db, 'ACME', 'BETA_ENERGY')).toBe(true);
    expect(await revokeSupplier(t.db, 'ACME', 'BETA_ENERGY')).toBe(false);
    expect((await listOrganisations(t.db)).find((o) => o.name === 'ACME')!.suppliers).toEqual(['ALPHA_ENERGY']);
  });

  it('lists an organisation without grants with no suppliers', async () => {
    await createOrganisation(t.db, 'EMPTY');
    expect((await listOrganisations(t.db)).find((o) => o.name === 'EMPTY')!.suppliers).toEqual([]);
  });

  it('refuses grants to an unknown organisation or of an unknown supplier with their codes', async () => {
    expect(await storeErrorCode(grantSupplier(t.db, 'NOBODY', 'ALPHA_ENERGY'))).toBe('organisation_not_found');
    expect(await storeErrorCode(grantSupplier(t.db, 'ACME', 'NO_SUCH_ENERGY'))).toBe('supplier_not_found');
    expect(await storeErrorCode(issueApiKey(t.db, 'NOBODY'))).toBe('organisation_not_found');
  });

  it('issues a prefixed random key, stores only its hash, lists and revokes it', async () => {
    const { id, key } = await issueApiKey(t.db, 'ACME', { label: 'bulk client' });
    expect(key).toMatch(/^dik_[A-Za-z0-9_-]{43}$/);
    const row = await t.db('api_keys').where({ id }).first();
    expect(JSON.stringify(row)).not.toContain(key.slice(4));
    const listed = (await listApiKeys(t.db, 'ACME')).find((k) => k.id === id);
    expect(listed).toEqual({ id, organisation: 'ACME', label: 'bulk client', prefix: key.slice(0, 12), createdAt: expect.any(Date), revokedAt: null, lastUsedAt: null, revealBankDetails: false });
    expect(await findKeyGrant(t.db, id)).toEqual({ organisation: 'ACME', revoked: false, suppliers: ['ALPHA_ENERGY'], revealBankDetails: false });
    expect(await revokeApiKey(t.db, id)).toBe(true);
    expect(await revokeApiKey(t.db, id)).toBe(false);
    expect(await revokeApiKey(t.db, 'key_unknown')).toBe(false);
    expect((await listApiKeys(t.db)).find((k) => k.id === id)!.revokedAt).toEqual(expect.any(Date));
    expect(await findKeyGrant(t.db, id)).toEqual({ organisation: 'ACME', revoked: true, suppliers: ['ALPHA_ENERGY'], revealBankDetails: false });
  });

  it('two keys never share a value', async () => {
    const a = await issueApiKey(t.db, 'ACME');
    const b = await issueApiKey(t.db, 'ACME');
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
  });
});

describe('the demo seed', () => {
  let t: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-demo-'));
  });
  afterAll(async () => {
    await t.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('grants DEMO the DEMO_ENERGY supplier, keeps the key in a 0600 file and reuses it while valid', async () => {
    const keyFile = path.join(dir, 'data', 'demo-api-key');
    const first = await seedDemo(t.db, { keyFile });
    expect(first.API_KEY).toMatch(/^dik_/);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(first.API_KEY);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect((await listOrganisations(t.db)).find((o) => o.name === 'DEMO')!.suppliers).toEqual(['DEMO_ENERGY']);

    const second = await seedDemo(t.db, { keyFile });
    expect(second.API_KEY).toBe(first.API_KEY);
    expect(await listApiKeys(t.db, 'DEMO')).toHaveLength(1);

    const [{ id }] = await listApiKeys(t.db, 'DEMO');
    await revokeApiKey(t.db, id!);
    const third = await seedDemo(t.db, { keyFile });
    expect(third.API_KEY).not.toBe(first.API_KEY);
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(third.API_KEY);
  });
});
