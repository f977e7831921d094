import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describeTranche, inTranche, parseFraction } from '../../../lib/tranche';
import { runMigration } from '../../../cli/migrate';
import { ReconcileState, ReconcileStateError, type StateHeader } from '../../../cli/reconcile/state';

const numbers = Array.from({ length: 40 }, (_, i) => `TR-${String(i).padStart(4, '0')}`);

describe('tranches (lib/tranche.ts)', () => {
  it('splits a book into n disjoint buckets that together hold every account', () => {
    const buckets = [1, 2, 3, 4].map((k) => numbers.filter((n) => inTranche({ bucket: { k, n: 4 } }, n)));
    expect(buckets.flat().sort()).toEqual(numbers);
    for (const b of buckets) expect(b.length).toBeGreaterThan(0);
  });

  it('parses k/n and refuses what is not one', () => {
    expect(parseFraction('3/8')).toEqual({ k: 3, n: 8 });
    expect(parseFraction('0/8')).toBeNull();
    expect(parseFraction('9/8')).toBeNull();
    expect(parseFraction('a/b')).toBeNull();
  });

  it('selects the same accounts in migrate as inTranche does', async () => {
    const created: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v2/data-import/accounts/') {
          created.push(JSON.parse(body).external_account_number);
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ warnings: [] }));
        } else if (req.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'PROCESSED', kraken_identifier: 'A-1', latest_error: null }));
        else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'not_found', detail: 'no' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tranche-'));
    try {
      const input = path.join(dir, 'book.ndjson');
      fs.writeFileSync(input, numbers.map((n) => JSON.stringify({ import_supplier: 'DEMO_ENERGY', external_account_number: n, customers: [], supply_addresses: [] })).join('\n') + '\n');
      const tranche = { bucket: { k: 2, n: 4 } };
      const summary = await runMigration({ input, apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pollIntervalMs: 50, progress: 'none', tranche });
      expect(created.sort()).toEqual(numbers.filter((n) => inTranche(tranche, n)));
      expect(summary.counts).toEqual({ PROCESSED: created.length });
    } finally {
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to resume a reconcile state of another tranche', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tranche-state-'));
    try {
      const file = path.join(dir, 'state.ndjson');
      const header = (t?: string): StateHeader => ({ kind: 'header', version: 1, input: '/b.ndjson', size: 10, batch_size: 500, ...(t ? { tranche: t } : {}) });
      const first = await ReconcileState.open(file, header(describeTranche({ bucket: { k: 1, n: 8 } })), false);
      first.close();
      await expect(ReconcileState.open(file, header(describeTranche({ bucket: { k: 2, n: 8 } })), false)).rejects.toThrow(ReconcileStateError);
      await expect(ReconcileState.open(file, header(), false)).rejects.toThrow(ReconcileStateError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
