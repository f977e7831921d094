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

/** Lints each file of `files` with the stores-only rule, the files compiled as one program against this tree's knex types. */
function lintStoresOnly(files: Record<string, string>): Record<string, string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stores-only-'));
  made.push(dir);
  const names = Object.keys(files).map((f) => path.join(dir, f));
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
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
      rules: { 'local/stores-only': 'error' as const },
    },
  ];
  return Object.fromEntries(
    names.map((n) => [path.basename(n), linter.verify(fs.readFileSync(n, 'utf8'), config, n).map((m) => `${m.line}: ${m.ruleId ?? 'parse'}: ${m.message.split(':')[0]}`)]),
  );
}

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
