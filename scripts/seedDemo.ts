import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { createSupplier, getSupplier, updateSupplier } from '../suppliers/store';
import { createOrganisation, dbTokenStore, grantSupplier, issueApiKey } from '../auth/store';
import { hashSecret } from '../auth/secrets';

export const DEMO_SUPPLIER = 'DEMO_ENERGY';
export const DEMO_ORGANISATION = 'DEMO';

/** The project root: the nearest folder above this file with a package.json (works from scripts/ and dist/scripts/). */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export const DEFAULT_DEMO_KEY_FILE = path.join(projectRoot(), 'data', 'demo-api-key');

/**
 * Demo data of the quick start: import supplier DEMO_ENERGY (Ongoing, no document existence
 * check, no customer emails), organisation DEMO granted it, and one API key returned as
 * `API_KEY`. Idempotent.
 *
 * Keys are stored hashed, so the demo key cannot be read back from the database: it is kept in
 * `data/demo-api-key` (development convenience only; mode 0600; data/ is gitignored) and reused
 * while the database still knows it unrevoked, instead of piling up a new key on every start.
 */
export async function seedDemo(db: Knex, opts: { keyFile?: string } = {}): Promise<Record<string, string | undefined>> {
  const keyFile = opts.keyFile ?? DEFAULT_DEMO_KEY_FILE;
  const created = await createSupplier(db, DEMO_SUPPLIER, { status: 'Ongoing', documentRoot: '', checkDocumentExistence: false, sendCustomerEmails: false, marketParticipantId: 'DEMO' });
  process.stderr.write(`[data-import] import supplier ${DEMO_SUPPLIER}: ${created ? 'created' : 'exists'}\n`);
  // A sender for its customer e-mails (off until an operator turns them on: docs/customer-emails.md).
  if (!(await getSupplier(db, DEMO_SUPPLIER))?.emailFromAddress) {
    await updateSupplier(db, DEMO_SUPPLIER, { emailFromName: 'Demo Energy', emailFromAddress: 'welcome@demo-energy.example', emailReplyTo: 'help@demo-energy.example' });
  }
  const orgCreated = await createOrganisation(db, DEMO_ORGANISATION);
  await grantSupplier(db, DEMO_ORGANISATION, DEMO_SUPPLIER);
  process.stderr.write(`[data-import] organisation ${DEMO_ORGANISATION}: ${orgCreated ? 'created' : 'exists'}, granted ${DEMO_SUPPLIER}\n`);

  const kept = readKeyFile(keyFile);
  if (kept) {
    const key = await dbTokenStore(db).findKeyByHash(hashSecret(kept));
    if (key && !key.revokedAt && key.organisation === DEMO_ORGANISATION) {
      process.stderr.write(`[data-import] demo API key ${key.id}: reused from ${keyFile}\n`);
      return { API_KEY: kept };
    }
  }
  const issued = await issueApiKey(db, DEMO_ORGANISATION, { label: 'demo (scripts/seedDemo.ts)' });
  fs.mkdirSync(path.dirname(keyFile), { recursive: true });
  fs.writeFileSync(keyFile, `${issued.key}\n`, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600); // writeFileSync's mode applies only to a new file
  process.stderr.write(`[data-import] demo API key ${issued.id}: issued, kept in ${keyFile}\n`);
  return { API_KEY: issued.key };
}

function readKeyFile(file: string): string | undefined {
  try {
    const v = fs.readFileSync(file, 'utf8').trim();
    return v || undefined;
  } catch {
    return undefined;
  }
}
