import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/db';
import { runCli } from '../unit/cli/runCli';
import { transition, upsertRun } from '../../imports/store';
import { importWorkflowId } from '../../imports/workflowId';

let t: TestDatabase;
let env: Record<string, string>;
let dir: string;

const cli = (...args: string[]) => runCli(args, env);
const jsonOf = async (...args: string[]) => {
  const r = await cli(...args, '--json');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  t = await createTestDatabase();
  env = { APP_ENV: 'test', DATABASE_URL: t.url };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-test-'));
});
afterAll(async () => {
  await t.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('data-import import-suppliers', () => {
  it('creates a supplier with every setting and shows it as JSON', async () => {
    const r = await cli(
      'import-suppliers', 'create', 'ACME_ENERGY', '--status', 'Paused', '--document-root', '/srv/documents/acme',
      '--check-document-existence', '--send-customer-emails', '--registration-lead-days', '3', '--market-participant-id', 'DEMO',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ACME_ENERGY');
    expect(await jsonOf('import-suppliers', 'show', 'ACME_ENERGY')).toEqual({
      code: 'ACME_ENERGY',
      status: 'Paused',
      document_root: '/srv/documents/acme',
      check_document_existence: true,
      send_customer_emails: true,
      registration_lead_days: 3,
      market_participant_id: 'DEMO',
      email_from_name: null,
      email_from_address: null,
      email_reply_to: null,
      email_rate_per_second: 2,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('creates a supplier with the defaults when no setting is given', async () => {
    expect((await cli('import-suppliers', 'create', 'PLAIN')).code).toBe(0);
    expect(await jsonOf('import-suppliers', 'show', 'PLAIN')).toMatchObject({
      status: 'Ongoing',
      document_root: '',
      check_document_existence: false,
      send_customer_emails: false,
      registration_lead_days: 1,
      market_participant_id: null,
    });
  });

  it('refuses to create a supplier twice, leaving the first unchanged', async () => {
    const r = await cli('import-suppliers', 'create', 'ACME_ENERGY', '--status', 'Complete');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ACME_ENERGY');
    expect((await jsonOf('import-suppliers', 'show', 'ACME_ENERGY')).status).toBe('Paused');
  });

  it.each([
    ['an unknown status', ['NEW_1', '--status', 'Running']],
    ['non-integer lead days', ['NEW_2', '--registration-lead-days', '1.5']],
    ['negative lead days', ['NEW_3', '--registration-lead-days', '-2']],
    ['a code with a colon', ['NEW:4']],
    ['an unknown market participant', ['NEW_5', '--market-participant-id', 'NOPE']],
  ])('rejects %s with exit 1 and creates nothing', async (_what, args) => {
    const r = await cli('import-suppliers', 'create', ...args);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).not.toBe('');
    expect((await jsonOf('import-suppliers', 'list')).map((s: { code: string }) => s.code)).toEqual(['ACME_ENERGY', 'PLAIN']);
  });

  it('lists suppliers in a table and as JSON', async () => {
    const r = await cli('import-suppliers', 'list');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^CODE\s+STATUS/);
    expect(lines.slice(2).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['ACME_ENERGY', 'Paused'],
      ['PLAIN', 'Ongoing'],
    ]);
    expect((await jsonOf('import-suppliers', 'list')).map((s: { code: string; status: string }) => [s.code, s.status])).toEqual([
      ['ACME_ENERGY', 'Paused'],
      ['PLAIN', 'Ongoing'],
    ]);
  });

  it('sets the status, and rejects an unknown status or supplier with exit 1', async () => {
    expect((await cli('import-suppliers', 'set-status', 'ACME_ENERGY', 'Ongoing')).code).toBe(0);
    expect((await jsonOf('import-suppliers', 'show', 'ACME_ENERGY')).status).toBe('Ongoing');
    expect((await cli('import-suppliers', 'set-status', 'ACME_ENERGY', 'Stopped')).code).toBe(1);
    const unknown = await cli('import-suppliers', 'set-status', 'NOBODY', 'Paused');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOBODY');
    expect((await jsonOf('import-suppliers', 'show', 'ACME_ENERGY')).status).toBe('Ongoing');
  });

  it('configures only the settings given', async () => {
    const r = await cli('import-suppliers', 'configure', 'ACME_ENERGY', '--no-send-customer-emails', '--registration-lead-days', '0', '--no-market-participant-id');
    expect(r.code).toBe(0);
    expect(await jsonOf('import-suppliers', 'show', 'ACME_ENERGY')).toMatchObject({
      status: 'Ongoing',
      document_root: '/srv/documents/acme',
      check_document_existence: true,
      send_customer_emails: false,
      registration_lead_days: 0,
      market_participant_id: null,
    });
  });

  it('rejects configure of an unknown supplier and configure without settings', async () => {
    expect((await cli('import-suppliers', 'configure', 'NOBODY', '--send-customer-emails')).code).toBe(1);
    expect((await cli('import-suppliers', 'configure', 'ACME_ENERGY')).code).toBe(1);
  });

  it('answers show of an unknown supplier with exit 1', async () => {
    const r = await cli('import-suppliers', 'show', 'NOBODY');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('NOBODY');
  });
});

describe('data-import organisations', () => {
  it('creates an organisation once and grants it suppliers', async () => {
    expect((await cli('organisations', 'create', 'Acme Migrations')).code).toBe(0);
    expect((await cli('organisations', 'create', 'Acme Migrations')).code).toBe(1);
    expect((await cli('organisations', 'grant', 'Acme Migrations', 'PLAIN')).code).toBe(0);
    expect((await cli('organisations', 'grant', 'Acme Migrations', 'ACME_ENERGY')).code).toBe(0);
    // Granting again changes nothing and is not an error.
    expect((await cli('organisations', 'grant', 'Acme Migrations', 'PLAIN')).code).toBe(0);
    expect(await jsonOf('organisations', 'list')).toEqual([
      { name: 'Acme Migrations', suppliers: ['ACME_ENERGY', 'PLAIN'], created_at: expect.any(String) },
    ]);
  });

  it('rejects a grant of an unknown supplier or to an unknown organisation with exit 1', async () => {
    const supplier = await cli('organisations', 'grant', 'Acme Migrations', 'NOBODY');
    expect(supplier.code).toBe(1);
    expect(supplier.stderr).toContain('NOBODY');
    const organisation = await cli('organisations', 'grant', 'Nobody Ltd', 'PLAIN');
    expect(organisation.code).toBe(1);
    expect(organisation.stderr).toContain('Nobody Ltd');
  });

  it('revokes a grant, and answers a revoke of no grant with exit 1', async () => {
    expect((await cli('organisations', 'revoke', 'Acme Migrations', 'PLAIN')).code).toBe(0);
    expect((await cli('organisations', 'revoke', 'Acme Migrations', 'PLAIN')).code).toBe(1);
    expect((await jsonOf('organisations', 'list'))[0].suppliers).toEqual(['ACME_ENERGY']);
    const table = await cli('organisations', 'list');
    expect(table.stdout).toMatch(/Acme Migrations\s+ACME_ENERGY/);
  });
});

describe('data-import api-keys', () => {
  let issuedId: string;

  it('prints only the key with --quiet', async () => {
    const r = await cli('api-keys', 'issue', '--organisation', 'Acme Migrations', '--quiet');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dik_\S+\n$/);
    expect(r.stderr).toBe('');
  });

  it('prints the key once with a warning, and lists it without the key', async () => {
    const r = await cli('api-keys', 'issue', '--organisation', 'Acme Migrations', '--label', 'bulk loader', '--json');
    expect(r.code).toBe(0);
    const issued = JSON.parse(r.stdout);
    expect(issued).toEqual({ id: expect.any(String), organisation: 'Acme Migrations', label: 'bulk loader', key: expect.stringMatching(/^dik_/) });
    issuedId = issued.id;

    const human = await cli('api-keys', 'issue', '--organisation', 'Acme Migrations');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\n {2}dik_\S+\n/);
    expect(human.stderr).toContain('cannot be shown again');

    const list = await cli('api-keys', 'list', '--organisation', 'Acme Migrations', '--json');
    expect(list.stdout).not.toContain(issued.key);
    const keys = JSON.parse(list.stdout);
    expect(keys).toHaveLength(3);
    expect(keys.find((k: { id: string }) => k.id === issued.id)).toEqual({
      id: issued.id,
      organisation: 'Acme Migrations',
      label: 'bulk loader',
      prefix: issued.key.slice(0, 12),
      created_at: expect.any(String),
      revoked_at: null,
      last_used_at: null,
      reveal_bank_details: false,
    });
    expect((await cli('api-keys', 'list')).stdout).not.toContain(issued.key);
  });

  it('rejects issuing for an unknown organisation or without one with exit 1', async () => {
    const unknown = await cli('api-keys', 'issue', '--organisation', 'Nobody Ltd');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('Nobody Ltd');
    expect((await cli('api-keys', 'issue')).code).toBe(1);
  });

  it('revokes a key once; a second revoke or an unknown id exits 1', async () => {
    expect((await cli('api-keys', 'revoke', issuedId)).code).toBe(0);
    const keys = await jsonOf('api-keys', 'list');
    expect(keys.find((k: { id: string }) => k.id === issuedId).revoked_at).toEqual(expect.any(String));
    expect(keys.filter((k: { revoked_at: string | null }) => k.revoked_at === null)).toHaveLength(2);
    expect((await cli('api-keys', 'revoke', issuedId)).code).toBe(1);
    expect((await cli('api-keys', 'revoke', 'no-such-key')).code).toBe(1);
  });
});

describe('data-import reference-data', () => {
  const codesOf = async (kind: string) => (await jsonOf('reference-data', 'list', '--kind', kind)).map((r: { code: string }) => r.code);

  it('loads JSON rows, adding new ones and updating descriptions of existing ones', async () => {
    const p = file(
      'campaigns.json',
      JSON.stringify([
        { kind: 'campaign', code: 'spring-2027', description: 'Spring 2027' },
        { kind: 'campaign', code: 'winter-support-2026', description: 'Renamed' },
        { kind: 'tariff_code', code: 'G-FIX-27', fuel: 'GAS' },
      ]),
    );
    const r = await cli('reference-data', 'load', p);
    expect(r.code).toBe(0);
    expect(await jsonOf('reference-data', 'list', '--kind', 'campaign')).toEqual([
      { kind: 'campaign', code: 'spring-2027', fuel: null, description: 'Spring 2027' },
      { kind: 'campaign', code: 'winter-support-2026', fuel: null, description: 'Renamed' },
    ]);
    expect(await jsonOf('reference-data', 'list', '--kind', 'tariff_code')).toContainEqual({ kind: 'tariff_code', code: 'G-FIX-27', fuel: 'GAS', description: null });
  });

  it('loads nothing when any row is bad and reports each bad row with its line', async () => {
    const before = await jsonOf('reference-data', 'list');
    const p = file('bad.csv', 'kind,code,fuel,description\ncampaign,autumn-2027,,Autumn\ncampaing,x,,\ntpr,00099,GAS,\n');
    const r = await cli('reference-data', 'load', p);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.slice(0, -1).map((l) => l.slice(0, l.indexOf(': ')))).toEqual([`${p}:3`, `${p}:4`]);
    expect(await jsonOf('reference-data', 'list')).toEqual(before);
  });

  it('replaces every row of the --kind in one go with --replace', async () => {
    const p = file('tprs.csv', 'code,description\n00001,Standard\n00777,New regime\n');
    const r = await cli('reference-data', 'load', p, '--kind', 'tpr', '--replace');
    expect(r.code).toBe(0);
    expect(await jsonOf('reference-data', 'list', '--kind', 'tpr')).toEqual([
      { kind: 'tpr', code: '00001', fuel: null, description: 'Standard' },
      { kind: 'tpr', code: '00777', fuel: null, description: 'New regime' },
    ]);
    // Other kinds are untouched.
    expect(await codesOf('campaign')).toEqual(['spring-2027', 'winter-support-2026']);
  });

  it('replaces the fuels of a tariff code the file names with the fuels it gives', async () => {
    const p = file('tariffs.json', JSON.stringify([{ kind: 'tariff_code', code: 'G-FIX-27', fuel: 'ELECTRICITY' }]));
    expect((await cli('reference-data', 'load', p, '--replace')).code).toBe(0);
    expect(await jsonOf('reference-data', 'list', '--kind', 'tariff_code')).toEqual([{ kind: 'tariff_code', code: 'G-FIX-27', fuel: 'ELECTRICITY', description: null }]);
  });

  it('changes nothing with --dry-run', async () => {
    const p = file('dry.csv', 'kind,code\ncampaign,never\n');
    const r = await cli('reference-data', 'load', p, '--replace', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 new, 0 updated, 2 removed/);
    expect(await codesOf('campaign')).toEqual(['spring-2027', 'winter-support-2026']);
  });

  it('removes one code, and answers an unknown code or kind with exit 1', async () => {
    expect((await cli('reference-data', 'remove', 'campaign', 'spring-2027')).code).toBe(0);
    expect(await codesOf('campaign')).toEqual(['winter-support-2026']);
    expect((await cli('reference-data', 'remove', 'campaign', 'spring-2027')).code).toBe(1);
    expect((await cli('reference-data', 'list', '--kind', 'colour')).code).toBe(1);
  });

  it('lists rows in a table', async () => {
    const r = await cli('reference-data', 'list', '--kind', 'tpr');
    expect(r.stdout.trim().split('\n').slice(2).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['tpr', '00001'],
      ['tpr', '00777'],
    ]);
  });

  it('answers a missing file with exit 1', async () => {
    const r = await cli('reference-data', 'load', path.join(dir, 'missing.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ENOENT');
  });
});

describe('data-import imports', () => {
  beforeAll(async () => {
    const now = new Date();
    const run = (supplier: string, external: string) =>
      upsertRun(t.db, null, {
        importSupplier: supplier,
        externalAccountNumber: external,
        payload: {},
        taskParams: {},
        isDryRun: false,
        scheduleWindowStart: now,
        scheduleWindowEnd: new Date(now.getTime() + 86_400_000),
        workflowId: importWorkflowId(supplier, external),
        warnings: [],
        now,
      });
    await run('PLAIN', 'P-1');
    const errored = await run('PLAIN', 'P-2');
    await transition(t.db, errored.id, errored.run, { status: 'ERRORED', error: { code: 'boom', detail: 'x', domain: 'import_process' }, at: now });
    await run('ACME_ENERGY', 'A-1');
  });

  it('lists imports with supplier, status and limit filters', async () => {
    const all = await jsonOf('imports', 'list');
    expect(all.map((p: { external_account_number: string; status: string }) => [p.external_account_number, p.status])).toEqual([
      ['P-1', 'PENDING'],
      ['P-2', 'ERRORED'],
      ['A-1', 'PENDING'],
    ]);
    expect(all[1]).toMatchObject({ import_supplier: 'PLAIN', workflow_id: 'account-import:PLAIN:P-2', latest_error: { code: 'boom' }, kraken_identifier: null, run: 1 });
    expect((await jsonOf('imports', 'list', '--supplier', 'PLAIN')).map((p: { external_account_number: string }) => p.external_account_number)).toEqual(['P-1', 'P-2']);
    expect((await jsonOf('imports', 'list', '--status', 'PENDING')).map((p: { external_account_number: string }) => p.external_account_number)).toEqual(['P-1', 'A-1']);
    expect((await jsonOf('imports', 'list', '--limit', '1')).map((p: { external_account_number: string }) => p.external_account_number)).toEqual(['P-1']);
    const table = await cli('imports', 'list', '--status', 'ERRORED');
    expect(table.stdout).toMatch(/P-2\s+ERRORED\s+1\s+-\s+\S+\s+boom/);
  });

  it('rejects an unknown status or a bad limit with exit 1', async () => {
    expect((await cli('imports', 'list', '--status', 'DONE')).code).toBe(1);
    expect((await cli('imports', 'list', '--limit', '0')).code).toBe(1);
  });

  it('refuses to cancel an unknown import or a finished one with exit 1', async () => {
    // Neither reaches Temporal: the database answers first (TEMPORAL_ADDRESS points nowhere).
    const noTemporal = { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const unknown = await runCli(['imports', 'cancel', 'PLAIN', 'NOPE'], noTemporal);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOPE');
    const finished = await runCli(['imports', 'cancel', 'PLAIN', 'P-2'], noTemporal);
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('ERRORED');
  });
});

describe('when the database cannot be reached', () => {
  it('exits 1 with one line naming the database without its password', async () => {
    // knex reports a failed connection with console.log, i.e. on standard output.
    const consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const r = await runCli(['import-suppliers', 'list'], { DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/none' }).finally(() => consoleLog.mockRestore());
    expect(consoleLog).not.toHaveBeenCalled();
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('127.0.0.1:1');
    expect(r.stderr).not.toContain('secret');
  });
});
