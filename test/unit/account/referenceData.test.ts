import fs from 'node:fs';
import path from 'node:path';
import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS, type ReferenceDataRow } from '../../../account/referenceData';
import { ReferenceDataCache, type ReferenceDataSource } from '../../../account/referenceDataCache';
import type { Knex } from 'knex';
import { errorsOf, example, validator } from './helpers';
import { eventually } from '../../support/eventually';

describe('reference data', () => {
  it('builds per-fuel tariff sets: a tariff is known only for its fuel', () => {
    const data = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);
    expect(data.tariffCodes.ELECTRICITY.has('E-2R-VAR-22-11-01-M')).toBe(true);
    expect(data.tariffCodes.GAS.has('E-2R-VAR-22-11-01-M')).toBe(false);
    expect(data.tariffCodes.GAS.has('G-1R-VAR-22-11-01-M')).toBe(true);
  });

  it('seeds PSR needs codes 1 to 35 and no others', () => {
    const data = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);
    expect([...data.psrNeedsCodes].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 35 }, (_, i) => String(i + 1)));
  });

  it('makes the example account (examples/) valid with the default seed', async () => {
    expect(JSON.parse(fs.readFileSync(path.join(__dirname, '../../../examples/account-dual-fuel.json'), 'utf8')).import_supplier).toBe('DEMO_ENERGY');
    const outcome = await validator().validate(example(), { mode: 'create' });
    expect(errorsOf(outcome)).toEqual([]);
    expect(outcome.ok).toBe(true);
  });
});

class FakeSource implements ReferenceDataSource {
  rowsRead = 0;
  constructor(public data: ReferenceDataRow[], public stamp = 'v1') {}
  async version() {
    return this.stamp;
  }
  async rows() {
    this.rowsRead++;
    return this.data;
  }
}

describe('ReferenceDataCache', () => {
  const db = {} as Knex;

  it('refuses current() before start()', () => {
    expect(() => new ReferenceDataCache(db, { source: new FakeSource([]) }).current()).toThrow();
  });

  it('reloads rows only when the version changes', async () => {
    const source = new FakeSource([{ kind: 'campaign', code: 'a' }]);
    const cache = new ReferenceDataCache(db, { source, pollIntervalMs: 60_000 });
    await cache.start();
    expect(cache.current().campaigns.has('a')).toBe(true);
    await cache.refresh();
    expect(source.rowsRead).toBe(1);
    source.data = [{ kind: 'campaign', code: 'b' }];
    source.stamp = 'v2';
    await cache.refresh();
    expect(source.rowsRead).toBe(2);
    expect(cache.current().campaigns.has('a')).toBe(false);
    expect(cache.current().campaigns.has('b')).toBe(true);
    await cache.stop();
  });

  it('picks up an operator change by polling', async () => {
    const source = new FakeSource([]);
    const cache = new ReferenceDataCache(db, { source, pollIntervalMs: 10 });
    await cache.start();
    source.data = [{ kind: 'dunning_path', code: 'new-path' }];
    source.stamp = 'v2';
    await eventually(() => cache.current().dunningPaths.has('new-path'), 10_000, 10);
    expect(cache.current().dunningPaths.has('new-path')).toBe(true);
    await cache.stop();
  });

  it('keeps the last good data when a poll fails', async () => {
    const source = new FakeSource([{ kind: 'tpr', code: '00001' }]);
    const errors: unknown[] = [];
    const cache = new ReferenceDataCache(db, { source, pollIntervalMs: 10, onError: (e) => errors.push(e) });
    await cache.start();
    source.version = async () => {
      throw new Error('database down');
    };
    await eventually(() => errors.length > 0, 10_000, 10);
    expect(errors.length).toBeGreaterThan(0);
    expect(cache.current().tprs.has('00001')).toBe(true);
    await cache.stop();
  });
});
