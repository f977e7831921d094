import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { runMigration } from '../../cli/migrate';
import { runReconcile } from '../../cli/reconcile';
import { inTranche } from '../../lib/tranche';
import { runMap } from '../../mapping';

const EXAMPLE = path.join(__dirname, '../../examples/legacy-extract');

/** docs/bulk-migration.md, "From a legacy extract": map → migrate → reconcile on the example extract. */
describe('data-import map, then migrate and reconcile, on the example extract', () => {
  let s: Stack;
  let server: http.Server;
  let apiUrl: string;
  let dir: string;

  beforeAll(async () => {
    s = await startStack();
    server = http.createServer(s.app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'map-migrate-'));
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a book that migrate --validate-first imports whole and reconcile signs off, a bucket the same accounts in all three', async () => {
    const book = path.join(dir, 'legacy.ndjson');
    const mapped = await runMap({ mapping: path.join(EXAMPLE, 'mapping.yaml'), extracts: path.join(EXAMPLE, 'extract'), out: book });
    expect(mapped.stats).toMatchObject({ accounts: 3, valid: 3, quarantined: 0 });
    const numbers = fs.readFileSync(book, 'utf8').trim().split('\n').map((l) => JSON.parse(l).external_account_number as string);

    // One bucket first, through all three: the same accounts.
    const bucket = { k: 1, n: 2 };
    const inBucket = numbers.filter((n) => inTranche({ bucket }, n));
    // A bucket that holds some accounts and not all (2 of 3), or the check below proves nothing.
    expect(inBucket).toHaveLength(2);
    const tranche = path.join(dir, 'tranche.ndjson');
    expect((await runMap({ mapping: path.join(EXAMPLE, 'mapping.yaml'), extracts: path.join(EXAMPLE, 'extract'), out: tranche, tranche: { bucket } })).stats.valid).toBe(inBucket.length);
    const bucketRun = await runMigration({ input: book, apiKey: s.apiKey, apiUrl, mode: 'validate-first', pollIntervalMs: 200, progress: 'none', tranche: { bucket }, statePath: path.join(dir, 'bucket.state.json'), reportPrefix: path.join(dir, 'bucket') });
    expect(bucketRun.counts).toEqual({ PROCESSED: inBucket.length });
    const bucketCheck = await runReconcile({ input: tranche, apiKey: s.apiKey, apiUrl, progress: 'none' });
    expect(bucketCheck.classes).toMatchObject({ matched: inBucket.length, missing: 0, mismatched: 0 });
    const sameBucket = await runReconcile({ input: book, apiKey: s.apiKey, apiUrl, progress: 'none', tranche: { bucket }, reportPrefix: path.join(dir, 'bucket-whole') });
    expect(sameBucket.classes).toMatchObject({ matched: inBucket.length, missing: 0, mismatched: 0 });

    // Then the whole book: the rest imported, every account signed off.
    const migrated = await runMigration({ input: book, apiKey: s.apiKey, apiUrl, mode: 'validate-first', pollIntervalMs: 200, progress: 'none' });
    expect(migrated.counts.PROCESSED).toBe(3);
    const signed = await runReconcile({ input: book, apiKey: s.apiKey, apiUrl, progress: 'none', extras: 'list' });
    expect(signed.classes).toEqual({ matched: 3, missing: 0, not_final: 0, failed: 0, mismatched: 0, extra: 0 });
    expect(signed.verdict).toBe('matched');
  });
});
