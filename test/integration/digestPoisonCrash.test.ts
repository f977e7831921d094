import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { digestForm } from '../../db/stores/accountDigests';
import { listSetAside } from '../../db/stores/digestQueue';
import { insertAccount, newAccountNumber, type Account } from '../../db/stores/accountStore';
import { DEFAULT_WORKER_NODE_OPTIONS } from '../../lib/nodeOptions';
import { createTestDatabase, TestDatabase } from '../support/db';

const EXAMPLE_PATH = path.join(__dirname, '../../examples/account-dual-fuel.json');
const MAX_ATTEMPTS = 2;
const LEASE_MS = 500;
/**
 * Values in the poison field. The finding's 1.4 million kill a whole worker, whose heap also holds
 * the Temporal runtime and workflow bundles; a filler alone in a process of the same cap needs more
 * to die of it (it read 1.4 million back within its 192 MiB in 4.8 s, measured), so this replay uses more.
 */
const VALUES = 4_000_000;

function variant(externalAccountNumber: string): Account {
  const a = JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Account;
  a.external_account_number = externalAccountNumber;
  a.references = (a.references ?? []).map((r) => ({ ...r, value: `${r.value}-${externalAccountNumber}` }));
  return a;
}

/** One worker's digest filler in its own process with the worker's heap flags: how it ended. */
function runFiller(url: string): Promise<{ pid: number; code: number | null; signal: string | null; oom: boolean; ms: number; stderr: string }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...DEFAULT_WORKER_NODE_OPTIONS, '--import', 'tsx', path.join(__dirname, '../support/digestFillerProcess.ts')], {
    env: { ...process.env, DATABASE_URL: url, MAX_ATTEMPTS: String(MAX_ATTEMPTS), LEASE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  child.stdout.resume();
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ pid: child.pid!, code, signal, oom: /heap out of memory/i.test(stderr), ms: Date.now() - t0, stderr: stderr.slice(0, 300) })),
  );
}

/**
 * The replay of issue 47's worker finding: an account with millions of values in one free-form
 * field (`business.details[0].value`), stored as it was before free-form values were bounded,
 * kills each digest filler that reads it back (V8 heap OOM under the worker's heap flags). Its
 * attempts, committed before the work, set it aside after MAX_ATTEMPTS deaths; the next worker
 * fills another tenant's account and stays up.
 */
describe('digest filler killed by a poison account (real process, worker heap flags)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db('import_suppliers').insert([{ code: 'TENANT_A' }, { code: 'TENANT_B' }]);
    const poison = variant('HUGE') as Account & { business?: unknown };
    poison.business = { company_name: 'Huge Ltd', business_type: 'LTD', details: [{ key: 'sic_codes', value: Array.from({ length: VALUES }, () => ({})) }] };
    await t.db.transaction((trx) => insertAccount(trx, { importSupplier: 'TENANT_A', externalAccountNumber: 'HUGE', accountNumber: newAccountNumber(), account: poison as Account }));
  }, 120_000);
  afterAll(async () => {
    await t.drop();
  });

  it('sets the account aside after its attempts died with the process, and the next worker fills another tenant’s account and exits normally', async () => {
    const runs = [];
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      runs.push(await runFiller(t.url));
      await new Promise((r) => setTimeout(r, LEASE_MS + 100));
    }
    process.stdout.write(`digest filler runs: ${JSON.stringify(runs)}\n`);
    // Each worker that read the account back died of it.
    for (const run of runs) expect(run).toMatchObject({ oom: true });
    const number = newAccountNumber();
    await t.db.transaction((trx) => insertAccount(trx, { importSupplier: 'TENANT_B', externalAccountNumber: 'B-1', accountNumber: number, account: variant('B-1') }));
    const after = await runFiller(t.url);
    process.stdout.write(`digest filler runs: ${JSON.stringify([...runs, after])}\n`);
    expect(after).toMatchObject({ code: 0, oom: false });
    const [item] = await listSetAside(t.db);
    expect(item).toMatchObject({ queue: 'digest', supplier: 'TENANT_A', externalAccountNumber: 'HUGE', attempts: MAX_ATTEMPTS });
    expect(item!.reason).toMatch(/never finished/);
    expect(((await t.db('accounts').where({ number }).first('stored_digest')) as { stored_digest: string | null }).stored_digest).toMatch(new RegExp(`^${digestForm()}:`));
  }, 240_000);
});
