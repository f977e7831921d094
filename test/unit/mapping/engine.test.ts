/** mapping/engine.ts: the sizes `--memory-limit` takes (as DuckDB reads them) and DuckDB's threads for one. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineThreads, inMemory, openEngine, sizeBytes } from '../../../mapping/engine';

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

describe('inMemory', () => {
  it('holds an extract within a quarter of the limit in memory, a larger or unknown one in a file', () => {
    expect(inMemory(1e9, '4GB')).toBe(true);
    expect(inMemory(1e9 + 1, '4GB')).toBe(false);
    expect(inMemory(200e6, '300MB')).toBe(false);
    expect(inMemory(undefined, '4GB')).toBe(false);
    expect(inMemory(1, 'nonsense')).toBe(false);
  });
});

describe('openEngine', () => {
  it('puts a database file in its folder only for a large extract, and removes the folder at the end', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'map-engine-'));
    try {
      for (const [bytes, file] of [[1e6, false], [1e9, true]] as const) {
        const { db, close } = await openEngine({ tempDir: root, memoryLimit: '1GB', extractBytes: bytes });
        const [dir] = fs.readdirSync(root);
        const conn = await db.connect();
        await conn.run('CREATE TABLE t AS SELECT 1 AS x');
        expect(fs.existsSync(path.join(root, dir, 'rows.duckdb'))).toBe(file);
        conn.closeSync();
        close();
        expect(fs.readdirSync(root)).toEqual([]);
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
