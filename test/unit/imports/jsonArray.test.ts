import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { jsonArrayStream } from '../../../imports/listing/jsonArray';

describe('jsonArrayStream', () => {
  const run = async (rows: unknown[]) => text(Readable.from(rows).pipe(jsonArrayStream((r: unknown) => ({ r }))));

  it('writes [] for no rows', async () => {
    expect(await run([])).toBe('[]');
  });

  it('writes one valid JSON array of the mapped items, however many chunks it takes', async () => {
    for (const n of [1, 2, 5_000]) {
      const rows = Array.from({ length: n }, (_, i) => `row-${i}-${'x'.repeat(i % 50)}`);
      expect(JSON.parse(await run(rows))).toEqual(rows.map((r) => ({ r })));
    }
  });
});
