import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountDigest } from '../../../account/canonical';
import { generateBook } from '../../../cli/generate';
import { legacyExtractMapping, runMap, writeLegacyExtract } from '../../../mapping';

const MAPPING = path.join(__dirname, '../../../examples/roundtrip/mapping.yaml');

describe('the round trip: a generated book as a legacy extract, mapped back', () => {
  it('keeps the mapping in the repository equal to the one the extract writer describes', () => {
    expect(fs.readFileSync(MAPPING, 'utf8')).toBe(legacyExtractMapping());
  });

  it('gives every account of a mixed book (full accounts included) the digest of the original', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-roundtrip-'));
    try {
      const book = [...generateBook({ seed: 'roundtrip', count: 30, profile: 'mixed' })] as unknown as Record<string, unknown>[];
      // A full account carries the platform's rarer parts: the mixed book must hold some.
      expect(book.filter((a) => a.warm_home_discount !== undefined).length).toBeGreaterThan(0);
      writeLegacyExtract(book, path.join(work, 'extract'));
      // A ledger's transactions are a table of their own, a row each, as a legacy system holds them
      // (not JSON in ledgers.csv): the round trip goes through their join too.
      const rows = (table: string) => fs.readFileSync(path.join(work, 'extract', `${table}.csv`), 'utf8').trim().split('\n');
      expect(rows('ledgers')[0]).toBe('K,P,I,last_statement_balance,last_statement_closing_date,last_statement_issue_date,ledger_balance');
      for (const list of ['current_statement_transactions', 'historical_statement_transactions']) {
        const count = book.flatMap((a) => (a.ledgers as Record<string, unknown[]>[] | undefined) ?? []).reduce((n, l) => n + (l[list]?.length ?? 0), 0);
        expect(count).toBeGreaterThan(0);
        expect(rows(`ledgers__${list}`)).toHaveLength(count + 1);
      }
      const out = path.join(work, 'back.ndjson');
      const summary = await runMap({ mapping: MAPPING, extracts: path.join(work, 'extract'), out });
      expect(summary.stats).toMatchObject({ accounts: 30, valid: 30, quarantined: 0, orphans: 0 });
      const back = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
      expect(back.map(accountDigest)).toEqual(book.map(accountDigest));
      // Read from DuckDB 7 accounts a query (the last query 2), in a worker thread and here: the same book.
      for (const threads of [0, 1]) {
        const batched = path.join(work, `batched-${threads}.ndjson`);
        await runMap({ mapping: MAPPING, extracts: path.join(work, 'extract'), out: batched, accountsPerQuery: 7, threads });
        expect(fs.readFileSync(batched, 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
