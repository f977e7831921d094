import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { Linter } from 'eslint';
import { ConfigArray } from '@eslint/config-array';
import tseslint from 'typescript-eslint';

// eslint.config.js's own rules on deliberate violations: "only stores touch tables"
// (scripts/lib/storesOnly.js, type-aware: run here over a small program of its own) and the layer
// table's rule for the activities/ layer; and which files of this tree each applies to.
const ROOT = path.join(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const storesOnly = require('../../../scripts/lib/storesOnly') as { rules: Record<string, unknown> };

/**
 * The rules eslint.config.js gives `file` (relative to the root): its configs matched and merged
 * as ESLint does (a later config's entry for a rule replaces an earlier one's).
 */
function rulesOf(file: string): Linter.RulesRecord {
  const part = { merge: (a: object, b: object) => ({ ...a, ...b }), validate() {} };
  const whole = { merge: 'replace' as const, validate() {} };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const configs = new ConfigArray(require(path.join(ROOT, 'eslint.config.js')), { basePath: ROOT, schema: { rules: part, plugins: part, languageOptions: whole, linterOptions: whole } });
  configs.normalizeSync();
  return (configs.getConfig(path.join(ROOT, file)) as { rules?: Linter.RulesRecord } | undefined)?.rules ?? {};
}

const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/**
 * Lints each file of `files` (paths relative to a root of their own) with `rules` of
 * scripts/lib/storesOnly.js, the files compiled as one program against this tree's knex types.
 */
function lintWith(files: Record<string, string>, rules: Linter.RulesRecord): Record<string, string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stores-only-'));
  made.push(dir);
  const names = Object.keys(files).map((f) => path.join(dir, f));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  const program = ts.createProgram(names, {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    baseUrl: dir,
    paths: { knex: [path.join(ROOT, 'node_modules/knex/types/index.d.ts')], pg: [path.join(ROOT, 'node_modules/@types/pg/index.d.ts')] },
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
    types: ['node'],
  });
  const linter = new Linter({ cwd: dir });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser as Linter.Parser, parserOptions: { programs: [program] } },
      plugins: { local: storesOnly as never },
      rules,
    },
  ];
  return Object.fromEntries(
    names.map((n) => [path.relative(dir, n), linter.verify(fs.readFileSync(n, 'utf8'), config, n).map((m) => `${m.line}: ${m.ruleId ?? 'parse'}: ${m.message.split(':')[0]}`)]),
  );
}

const lintStoresOnly = (files: Record<string, string>) => lintWith(files, { 'local/stores-only': 'error' });

describe('lint: only stores touch tables', () => {
  it('fails on each deliberate violation, whatever the handle is called, once per query chain', () => {
    const found = lintStoresOnly({
      'violations.ts': [
        "import type { Knex } from 'knex';",
        "import knex from 'knex';",
        "import pg from 'pg';",
        "export const a = (db: Knex) => db('accounts').where({ id: 1 }).first('id');",
        "export const b = async (handle: Knex) => { await handle.raw('SELECT 1'); };",
        "export const c = (db: Knex) => { const q = db('x'); q.where('a', 1); return q; };",
        'export const d = (db: Knex) => db.transaction(async (trx) => { await trx.insert({ a: 1 }).into(\'t\'); });',
        "export const e = async (t: Knex.Transaction) => { await t('t').del(); };",
        'export const f = (db: Knex) => db.fn.now();',
        "export const g = (deps: { db: Knex }) => deps.db('outbox').count('*');",
        "export const h = (deps: { db: Knex }) => deps.db.raw('SELECT 1');",
        'export const keep = [knex, pg];',
      ].join('\n'),
    });
    expect(found['violations.ts']).toEqual([
      "2: local/stores-only: a value import of 'knex'",
      "3: local/stores-only: a value import of 'pg'",
      '4: local/stores-only: a query on a knex handle',
      '5: local/stores-only: a query (.raw)',
      '6: local/stores-only: a query on a knex handle',
      '6: local/stores-only: a query (.where)',
      '7: local/stores-only: a query (.insert)',
      '8: local/stores-only: a query on a knex handle',
      '9: local/stores-only: a query (.now)',
      '10: local/stores-only: a query on a knex handle (.db)',
      '11: local/stores-only: a query (.raw)',
    ]);
  });

  it('lets a service pass a handle on, open a transaction and import the types', () => {
    const found = lintStoresOnly({
      'service.ts': [
        "import type { Knex } from 'knex';",
        "import { type Knex as K } from 'knex';",
        'export const save = (db: K, store: (trx: Knex) => Promise<number>) => db.transaction((trx) => store(trx));',
        "export const other = (xs: string[]) => xs.map((x) => x.trim()).join(',');",
      ].join('\n'),
    });
    expect(found['service.ts']).toEqual([]);
  });

  it('holds every product file but the stores and the storage layer', () => {
    const applies = (file: string) => rulesOf(file)['local/stores-only'] !== undefined;
    for (const file of ['topUps/notes.ts', 'emails/delivery.ts', 'maintenance/retention.ts', 'cli/commands/emails.ts', 'api/main.ts', 'lib/readiness.ts', 'activities/imports/create.ts', 'imports/service.ts']) {
      expect([file, applies(file)]).toEqual([file, true]);
    }
    for (const file of ['imports/store.ts', 'topUps/store.ts', 'emails/rateStore.ts', 'db/stores/accountStore.ts', 'db/knex.ts', 'events/outbox.ts', 'test/integration/retention.test.ts', 'bench/floor.ts']) {
      expect([file, applies(file)]).toEqual([file, false]);
    }
  });
});

describe('lint: one owner per table', () => {
  const owners = { accounts: 'db/stores', meter_points: 'db/stores', notes: 'db/stores', import_processes: 'imports', outbox: 'events' };
  const lintOwners = (files: Record<string, string>) => lintWith(files, { 'local/table-owner': ['error', { owners }] });

  it("fails on each table its folder does not own, an unknown table and an unnamed one, whichever way the query names it", () => {
    const found = lintOwners({
      'imports/store.ts': [
        "import type { Knex } from 'knex';",
        "export const a = (db: Knex) => db('accounts').where({ id: 1 }).first('id');",
        "export const b = (deps: { db: Knex }) => deps.db('accounts').count('*');",
        "export const c = (db: Knex) => db.select('id').from('meter_points as mp');",
        "export const d = (trx: Knex) => trx.insert({ a: 1 }).into('notes');",
        "export const e = (db: Knex) => db.raw('SELECT 1 FROM accounts a WHERE a.id = ?', [1]);",
        'export const f = (p: string) => `EXISTS (SELECT 1 FROM accounts a WHERE a.import_supplier = ${p}.import_supplier)`;',
        "export const g = (db: Knex, t: 'import_processes' | 'notes') => db(t).first('id');",
        "export const h = (db: Knex) => db('brand_new_table').first('id');",
        "export const i = (db: Knex, t: string) => db(t).first('id');",
        "export const j = (db: Knex) => db('outbox').del();",
      ].join('\n'),
    });
    expect(found['imports/store.ts']).toEqual([
      "2: local/table-owner: table 'accounts' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "3: local/table-owner: table 'accounts' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "4: local/table-owner: table 'meter_points' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "5: local/table-owner: table 'notes' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "6: local/table-owner: table 'accounts' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "7: local/table-owner: table 'accounts' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "8: local/table-owner: table 'notes' is owned by db/stores/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
      "9: local/table-owner: table 'brand_new_table' has no owner",
      '10: local/table-owner: a query whose table is not named (a `string` argument)',
      "11: local/table-owner: table 'outbox' is owned by events/, not by imports/ (docs/architecture.md, \"Who owns which table\")",
    ]);
  });

  it('lets each folder query its own tables, join others, and db/stores/ walk the Account by a table known at run time', () => {
    const found = lintOwners({
      'imports/listing/store.ts': [
        "import type { Knex } from 'knex';",
        "export const a = (db: Knex) => db('import_processes as p').leftJoin('accounts as a', 'a.id', 'p.id').select('p.id');",
        "export const b = (db: Knex) => db.raw('WITH done AS (SELECT id FROM import_processes) SELECT count(*) FROM done');",
        "export const c = (db: Knex) => db.raw('SELECT x FROM jsonb_to_recordset(?) AS t(x int)', ['[]']);",
        "export const d = 'Imports from the supplier, into the platform';",
        "export const e = (db: Knex) => db.with('ins', db('import_processes').select('id')).select('id').from('ins');",
        "export const f = 'SELECT count(*) FROM done';",
      ].join('\n'),
      'db/stores/accountThing.ts': [
        "import type { Knex } from 'knex';",
        "export const a = (db: Knex) => db('accounts').where({ id: 1 }).first('id');",
        "export const b = (db: Knex, table: string) => db(table).where({ account_id: 1 }).del();",
        'export const c = (p: string) => `EXISTS (SELECT 1 FROM accounts a WHERE a.import_supplier = ${p}.import_supplier)`;',
      ].join('\n'),
      'events/outboxThing.ts': ["import type { Knex } from 'knex';", "export const a = (db: Knex) => db('outbox').del();"].join('\n'),
    });
    expect(found).toEqual({ 'imports/listing/store.ts': [], 'db/stores/accountThing.ts': [], 'events/outboxThing.ts': [] });
  });

  it('takes one owner per table: a list of folders is refused, and every table of eslint.config.js has one', () => {
    const twoOwners = { 'local/table-owner': ['error', { owners: { outbox: ['events', 'maintenance'] } }] } as Linter.RulesRecord;
    expect(() => lintWith({ 'events/outbox.ts': "export const a = 1;" }, twoOwners)).toThrow(/local\/table-owner"?:\s+Value \["events","maintenance"\] should be string/);
    const [, options] = rulesOf('imports/store.ts')['local/table-owner'] as [string, { owners: Record<string, unknown> }];
    expect(Object.entries(options.owners).filter(([, owner]) => typeof owner !== 'string')).toEqual([]);
  });

  it("gives db/stores/ every table of the Account, and holds every product file but the migrations", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { TABLE_SPECS } = require('../../../db/stores/accountTables') as { TABLE_SPECS: Record<string, unknown> };
    const [, options] = rulesOf('imports/store.ts')['local/table-owner'] as [string, { owners: Record<string, string | string[]> }];
    expect(Object.keys(TABLE_SPECS).length).toBeGreaterThan(90);
    for (const table of Object.keys(TABLE_SPECS)) expect([table, options.owners[table]]).toEqual([table, 'db/stores']);
    const applies = (file: string) => rulesOf(file)['local/table-owner'] !== undefined;
    for (const file of ['imports/store.ts', 'topUps/store.ts', 'db/stores/accountStore.ts', 'events/outbox.ts', 'account/referenceDataStore.ts', 'cli/commands/emails.ts']) {
      expect([file, applies(file)]).toEqual([file, true]);
    }
    for (const file of ['db/migrations/0001_core.ts', 'test/integration/retention.test.ts']) expect([file, applies(file)]).toEqual([file, false]);
  });
});

describe("lint: a feature's surface", () => {
  it("fails on a feature importing a file of another feature but its index.ts, types included; passes through the index and within a feature", () => {
    const linter = new Linter({ cwd: ROOT });
    const check = (file: string, text: string) => {
      const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser }, rules: { 'no-restricted-imports': rulesOf(file)['no-restricted-imports']! } }];
      return linter.verify(text, config, path.join(ROOT, file)).map((m) => m.message);
    };
    const surface = expect.stringContaining('only through its index.ts');
    expect(check('topUps/account.ts', "import { getSupplier } from '../suppliers/store';")).toEqual([surface]);
    expect(check('topUps/documents.ts', "import type { ImportSupplier } from '../suppliers/store';")).toEqual([surface]);
    expect(check('imports/http/listings.ts', "import { getSupplier } from '../../suppliers/store';")).toEqual([surface]);
    expect(check('ops/summary.ts', "import { IMPORT_STATUSES } from '../imports/rowStore';")).toEqual([surface]);
    expect(check('topUps/account.ts', "import { getSupplier } from '../suppliers';")).toEqual([]);
    expect(check('imports/http/listings.ts', "import { getSupplier } from '../../suppliers/index';")).toEqual([]);
    expect(check('imports/http/listings.ts', "import { findProcess } from '../store';")).toEqual([]);
    // Not a feature: activities/ and the entry points may still reach a feature's files.
    expect(check('activities/imports/create.ts', "import { getPayload } from '../../imports/store';")).toEqual([]);
  });
});

describe('lint: the activities/ layer', () => {
  it('fails on a feature importing an activity, and on an activity importing an entry point or http/', () => {
    const linter = new Linter({ cwd: ROOT });
    const check = (file: string, text: string) => {
      const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser }, rules: { 'no-restricted-imports': rulesOf(file)['no-restricted-imports']! } }];
      return linter.verify(text, config, path.join(ROOT, file)).map((m) => m.message);
    };
    expect(check('imports/service.ts', "import { createActivities } from '../activities/imports';")).toEqual([expect.stringContaining('layer "features"')]);
    expect(check('activities/imports/create.ts', "import { createWorker } from '../../worker/createWorker';")).toEqual([expect.stringContaining('layer "activities"')]);
    expect(check('activities/registration.ts', "import { HttpError } from '../http/errors';")).toEqual([expect.stringContaining('layer "activities"')]);
    expect(check('activities/imports/create.ts', "import { getPayload } from '../../imports/store';")).toEqual([]);
    expect(check('worker/createWorker.ts', "import { createActivities } from '../activities/imports';")).toEqual([]);
    expect(check('workflows/accountImport.ts', "import type { createActivities } from '../activities/imports';")).toEqual([]);
    expect(check('workflows/accountImport.ts', "import { createActivities } from '../activities/imports';")).toEqual([expect.stringContaining('as types only')]);
  });
});
