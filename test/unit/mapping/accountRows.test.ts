import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateBook } from '../../../cli/generate';
import { runMap, writeLegacyExtract } from '../../../mapping';
import type { RawAccount } from '../../../mapping/accountRows';
import { AccountMapper } from '../../../mapping/mapAccount';

const MAPPING = path.join(__dirname, '../../../examples/roundtrip/mapping.yaml');

/** The rows of a RawAccount reversed and interleaved: no row where DuckDB put it. */
function shuffled(raw: RawAccount): RawAccount {
  const rows = JSON.parse(raw.rows) as unknown[];
  const back = rows.slice().reverse();
  const out = [...back.filter((_, i) => i % 2 === 1), ...back.filter((_, i) => i % 2 === 0)];
  return { rows: JSON.stringify(out) };
}

describe("an account's rows as the store gives them", () => {
  // DuckDB hands over an account's rows in no particular order (mapping/store.ts accounts: an
  // aggregate kept in order cost more than the rest of the read): the build orders them itself.
  it('make the same line in any order', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-rows-'));
    const seen: { mapper: AccountMapper; raw: RawAccount; line: string }[] = [];
    const map = AccountMapper.prototype.map;
    const spy = jest.spyOn(AccountMapper.prototype, 'map').mockImplementation(async function (this: AccountMapper, raw: RawAccount) {
      const outcome = await map.call(this, raw);
      if (!outcome.outside) seen.push({ mapper: this, raw, line: outcome.line });
      return outcome;
    });
    try {
      writeLegacyExtract([...generateBook({ seed: 'rows-order', count: 12, profile: 'mixed' })] as unknown as Record<string, unknown>[], path.join(work, 'extract'));
      const summary = await runMap({ mapping: MAPPING, extracts: path.join(work, 'extract'), out: path.join(work, 'book.ndjson'), threads: 0 });
      expect(summary.stats).toMatchObject({ accounts: 12, valid: 12 });
      expect(seen).toHaveLength(12);
      for (const { mapper, raw, line } of seen) {
        const again = shuffled(raw);
        expect(again.rows).not.toBe(raw.rows);
        const outcome = await map.call(mapper, again);
        expect(outcome.outside ? null : outcome.line).toBe(line);
      }
    } finally {
      spy.mockRestore();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
