/** mapping/engine.ts: the sizes `--memory-limit` takes (as DuckDB reads them) and DuckDB's threads for one. */
import { engineThreads, sizeBytes } from '../../../mapping/engine';

describe('sizeBytes', () => {
  it('reads a number and a unit, decimal or binary, in any case', () => {
    expect(sizeBytes('4GB')).toBe(4e9);
    expect(sizeBytes('512mb')).toBe(512e6);
    expect(sizeBytes('1.5GiB')).toBe(1.5 * 2 ** 30);
    expect(sizeBytes(' 300 MiB ')).toBe(300 * 2 ** 20);
    expect(sizeBytes('100B')).toBe(100);
    expect(sizeBytes('2TB')).toBe(2e12);
  });

  it('is NaN for anything else (the CLI refuses it)', () => {
    for (const text of ['', '4', 'GB', '4ib', '4 gigs', '4G', '-1GB', '4GBB', '4PB', '1e3MB', '4 G B']) expect(sizeBytes(text)).toBeNaN();
  });
});

describe('engineThreads', () => {
  it('gives one thread per GiB of the limit, at least one, and every core for a size it cannot read', () => {
    expect(engineThreads('300MB')).toBe(1);
    expect(engineThreads('1GiB')).toBe(1);
    expect(engineThreads('nonsense')).toBeGreaterThanOrEqual(1);
  });
});
