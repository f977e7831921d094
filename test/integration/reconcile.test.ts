import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { startStack, Stack } from '../support/stack';
import { exampleAccount } from '../support/fixtures';
import { runCli } from '../unit/cli/runCli';
import { londonToday } from '../../account/dates';
import { generateBookEntries, PROFILES } from '../../cli/generate';
import { runMigration } from '../../cli/migrate';
import { runReconcile, type AccountResult, type ReconcileSummary } from '../../cli/reconcile';
import { deleteAccount } from '../../db/stores/accountStore';
import { setKeyRevealsBankDetails } from '../../auth/store';

jest.setTimeout(300_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Workflow ids are global to the Temporal test server: this run's own numbers.
const RUN = crypto.randomBytes(3).toString('hex');

/**
 * The edge cases the rules allow, on the example account (examples/account-dual-fuel.json), each
 * with its own external account number and reference.
 */
function edgeCases(): Json[] {
  const base = (name: string): Json => {
    const a = exampleAccount({ external_account_number: `REC-EDGE-${name}-${RUN}` }) as Json;
    a.references = [{ namespace: 'legacy-crm', value: `CRM-${name}-${RUN}` }];
    return a;
  };

  // Every optional list empty (the required ones keep what they need), nulls where allowed.
  const empty = base('EMPTY');
  empty.customers[0].psr = [];
  empty.customers[0].customer_preferences = {};
  empty.notes = [];
  empty.statements = [];
  empty.warm_home_discount = [];
  empty.account_campaigns = [];
  empty.metadata = [];
  empty.debts = [];
  empty.payment_schedules = [];
  empty.payment_instructions = [];
  empty.payment_preferences = [];
  empty.references = [];
  empty.unknown_occupier = null;
  for (const sa of empty.supply_addresses) {
    sa.property_administrators = [];
    for (const mp of sa.meter_points) {
      mp.aq_history = [];
      for (const m of mp.meters) m.reading_history = [];
    }
  }
  empty.ledgers[0].historical_statement_transactions = [];

  // Every optional field present, in the forms the service normalises on the way in.
  const full = base('FULL');
  full.unknown_occupier = false;
  full.operations_team_name = 'Team Ω';
  full.billing_postcode = 'ls14dy';
  full.customers[0].mobile = '07911123456';
  full.customers[0].landline = '+44 20 7946 0123';
  full.supply_addresses[0].supply_postcode = 'ls1 4dy';
  full.supply_addresses[0].property_administrators = [
    { given_name: 'Pat', family_name: 'Agent', email: 'pat.agent@example.org', mobile: '07534 567891', landline: '0113 496 0000', date_of_birth: '1970-01-01', title: 'Mx', salutation: 'Dear Pat' },
  ];
  full.notes = [
    { created_at: '2026-06-14T10:31:00.123456+01:00', body: 'Offset and microseconds', document_paths: [{ document_path: '/notes/full/a.pdf' }] },
    { created_at: '2026-06-15T09:31:00.000Z', body: '', document_paths: [{ document_path: '/notes/full/b.pdf' }] },
    { created_at: '2026-06-16T09:31:00-0230', body: 'Offset without a colon' },
  ];
  full.debts = [{ agency_name: 'Northgate Recoveries', start_date: '2025-01-01', is_insolvent: false, aged_debt: [{ debt_amount: '120.50', due_date: '2025-02-01' }, { debt_amount: '0.01', due_date: '2025-03-01' }] }];
  full.dunning_path = { path_name: 'standard', start_date: londonToday(new Date()) };
  full.payment_instructions = [
    { reference: `MANDATE-${RUN}`, type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', ledger_code: 'MAIN', use_for_scheduled_payments: true, valid_from: '2025-01-01', customer_reference: 'CUST-Ω', instruction_identifier: 'PI-1', sort_code: '089999', bank_account_number: '66374958' },
  ];
  full.payment_preferences = [
    { type: 'ACTIVE_NEW', ledger_identifier: 'MAIN', instruction_reference_params: { instruction_identifier: 'PI-1' } },
    { type: 'PASSIVE', ledger_identifier: 'OTHER' },
  ];
  full.dd_reference = `MANDATE-${RUN}`;
  full.metadata = [
    { key: 'nested', value: { z: null, a: [], deep: { b: [1, 2.5, 'x'], a: true }, 'ü': 'ünïcödé' } },
    { key: 'empty', value: {} },
  ];
  // Fields of the platform's Account (issue 35), each in a table or column of its own.
  const point = full.supply_addresses[0].meter_points[0];
  point.configuration_periods = [{ effective_from_date: '2022-11-01', measurement_class: 'A', energisation_status: 'E', gsp: '_C', llf: '021', mtc: 801, profile_class: 1, ssc: '0393' }];
  point.agents = { mop_contract: { agent_mpid: 'LOND', contract_reference: 'MOP-1', is_customer_appointed: false } };
  point.meters[0].smart_device_id = '00-1A-2B-3C-4D-5E-6F-70';
  full.complaints = [{ complainant_name: 'Aoife Ní Bhriain', complainant_email: 'aoife@example.org', created_at: '2026-03-02T11:00:00Z', type_of_complaint: 'BILLING', subtype_of_complaint: 'ESTIMATED_BILL', has_chsr_letter_been_sent: false, has_eight_week_letter_been_sent: false, complaint_contacts: [] }];

  // Names and text beyond ASCII: accents, combining marks, CJK, right-to-left, emoji.
  const unicode = base('UNICODE');
  unicode.customers[0].given_name = 'Zoë 👩‍🔧';
  unicode.customers[0].family_name = 'O\u0301 Briain-Åström 王';
  unicode.customers[0].salutation = 'A chara,\u00a0Zoë';
  unicode.billing_name = 'أحمد الفارسي';
  unicode.billing_address1 = 'Ty\u0302 Mawr';
  unicode.supply_addresses[0].supply_address1 = 'Tŷ Mawr 🏠';
  unicode.notes = [{ created_at: '2026-06-14T09:31:00Z', body: 'Line one\nLine two\t"quoted" \\ back — ✓ 🚀' }];

  // Amounts at the edges of what the rules take, old dates.
  const extreme = base('EXTREME');
  extreme.transfer_balance = '-9999999999.99';
  extreme.ledgers[0].ledger_balance = '-9999999999.99';
  extreme.ledgers[0].last_statement_balance = '-10000000000.00';
  extreme.customers[0].date_of_birth = '0001-01-01';
  extreme.customers[1].date_of_birth = '1900-01-01';
  extreme.customers[0].psr = [{ gas_industry_code: '07', effective_from: '1990-01-01' }];
  extreme.payment_schedules[0].amount = '0.00';
  extreme.supply_addresses[0].meter_points[0].meters[0].reading_history[0].reading_value = '0.000';
  extreme.notes = [
    { created_at: '1970-01-01T00:00:00Z', body: 'epoch' },
    { created_at: '0001-01-01T00:00:00.5+00:30', body: 'the first year PostgreSQL holds (0000 is refused: invalid_date)' },
  ];
  extreme.debts = [{ agency_name: 'Pennine Credit Services', aged_debt: [{ debt_amount: '0.00', due_date: '2000-02-29' }, { debt_amount: '99999999.99', due_date: '2000-03-01' }] }];
  return [empty, full, unicode, extreme];
}

function readReport(prefix: string): { summary: ReconcileSummary; accounts: AccountResult[] } {
  return JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
}

describe('reconcile on the real stack: a migrated book is matched, and tampering is found', () => {
  let s: Stack;
  let server: http.Server;
  let apiUrl: string;
  let dir: string;
  let book: string;
  let sentCount = 0;
  let unsent: string;
  /** Called after every answered bulk digest request (the resume test aborts from here). */
  let onDigests: () => void = () => undefined;

  beforeAll(async () => {
    s = await startStack();
    const hook: Koa.Middleware = async (ctx, next) => {
      await next();
      if (ctx.method === 'POST' && ctx.path === '/v2/data-import/accounts/digests/' && ctx.status === 200) onDigests();
    };
    s.app.middleware.unshift(hook);
    server = http.createServer(s.app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconcile-'));

    // The book: accounts of every generator profile, then the edge cases.
    const today = londonToday(new Date());
    const lines: string[] = [];
    for (const profile of PROFILES) {
      const count = profile === 'large' ? 2 : 4;
      for (const { account } of generateBookEntries({ seed: `reconcile-${profile}`, count, prefix: `REC-${profile}-${RUN}-`, today, profile })) lines.push(JSON.stringify(account));
    }
    for (const a of edgeCases()) lines.push(JSON.stringify(a));
    const sent = path.join(dir, 'sent.ndjson');
    fs.writeFileSync(sent, `${lines.join('\n')}\n`);
    sentCount = lines.length;
    const migrated = await runMigration({ input: sent, apiKey: s.apiKey, apiUrl, concurrency: 4, pollIntervalMs: 200, progress: 'none' });
    if (migrated.counts.PROCESSED !== lines.length) {
      // Show why: the report lists each account's errors.
      const report = JSON.parse(fs.readFileSync(`${sent}.report.json`, 'utf8')) as { accounts: { final_status: string }[] };
      throw new Error(`not every account was imported: ${JSON.stringify(report.accounts.filter((a) => a.final_status !== 'PROCESSED'))}`);
    }

    // The book to reconcile: what was sent, plus one entry never sent.
    const never = exampleAccount({ external_account_number: `REC-UNSENT-${RUN}` }) as Json;
    never.references = [{ namespace: 'legacy-crm', value: `CRM-UNSENT-${RUN}` }];
    unsent = never.external_account_number as string;
    book = path.join(dir, 'book.ndjson');
    fs.writeFileSync(book, `${lines.join('\n')}\n${JSON.stringify(never)}\n`);
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('matches every account of every profile and every edge case, with equal totals', async () => {
    const input = path.join(dir, 'sent.ndjson');
    const summary = await runReconcile({ input, apiKey: s.apiKey, apiUrl, progress: 'none' });
    const report = readReport(`${input}.reconcile`);
    const notMatched = report.accounts.filter((a) => a.class !== 'matched');
    expect(notMatched).toEqual([]);
    expect(summary.classes).toEqual({ matched: sentCount, missing: 0, not_final: 0, failed: 0, mismatched: 0, extra: 0 });
    expect(summary.totals.platform).toEqual(summary.totals.source);
    expect(summary.totals.source.accounts).toBe(sentCount);
    expect(summary.allMatched).toBe(true);
    expect(fs.existsSync(`${input}.reconcile-state.ndjson`)).toBe(false);
    const csv = fs.readFileSync(`${input}.reconcile.csv`, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('external_account_number,import_supplier,class,status,kraken_identifier,error_code,path,source_value,platform_value');
    expect(csv).toHaveLength(sentCount + 1);
  });

  it('resumes an interrupted run from its state file and ends with the same result', async () => {
    const input = path.join(dir, 'sent.ndjson');
    const controller = new AbortController();
    let answered = 0;
    onDigests = () => {
      if (++answered === 2) controller.abort();
    };
    const first = await runReconcile({ input, apiKey: s.apiKey, apiUrl, progress: 'none', batchSize: 3, concurrency: 1, reportPrefix: path.join(dir, 'resume'), signal: controller.signal });
    onDigests = () => undefined;
    expect(first.interrupted).toBe(true);
    expect(first.allMatched).toBe(false);
    expect(fs.existsSync(`${input}.reconcile-state.ndjson`)).toBe(true);
    const second = await runReconcile({ input, apiKey: s.apiKey, apiUrl, progress: 'none', batchSize: 3, concurrency: 1, reportPrefix: path.join(dir, 'resume') });
    expect(second.batches.resumed).toBeGreaterThanOrEqual(1);
    expect(second.batches.resumed + second.batches.done).toBe(Math.ceil(sentCount / 3));
    expect(second.classes.matched).toBe(sentCount);
    expect(second.allMatched).toBe(true);
    expect(readReport(path.join(dir, 'resume')).accounts).toHaveLength(sentCount);
  });

  it('after one stored value is altered, one import deleted and one entry left unsent, reports exactly those three', async () => {
    const lines = fs.readFileSync(book, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    const altered = lines[0]!.external_account_number as string;
    const deleted = lines[1]!.external_account_number as string;
    const alteredRow = await s.t.db('accounts').where({ import_supplier: 'DEMO_ENERGY', external_account_number: altered }).first();
    const ledger = await s.t.db('ledgers').where({ account_id: alteredRow.id }).orderBy('id').first();
    await s.t.db('ledgers').where({ id: ledger.id }).update({ ledger_balance: '12345.67', ledger_balance_text: null });
    const deletedRow = await s.t.db('accounts').where({ import_supplier: 'DEMO_ENERGY', external_account_number: deleted }).first();
    await s.t.db.transaction(async (trx) => {
      await deleteAccount(trx, Number(deletedRow.id));
      await trx('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: deleted }).delete();
    });

    // Through the command itself: the exit code and the one-screen summary.
    const run = await runCli(['reconcile', '--input', book, '--api-url', apiUrl, '--api-key', s.apiKey, '--progress', 'none'], {});
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('not every account matched')]);
    expect(run.stdout).toContain('NOT EVERY ACCOUNT MATCHED');
    expect(run.stdout).toMatch(/mismatched +DEMO_ENERGY\/REC-\S+: ledgers\.0\.ledger_balance/);
    expect(run.stdout.trim().split('\n').length).toBeLessThanOrEqual(24);

    const report = readReport(`${book}.reconcile`);
    const notMatched = report.accounts.filter((a) => a.class !== 'matched');
    expect(notMatched.map((a) => [a.external_account_number, a.class]).sort()).toEqual([
      [altered, 'mismatched'],
      [deleted, 'missing'],
      [unsent, 'missing'],
    ].sort());
    const mismatch = notMatched.find((a) => a.class === 'mismatched')!;
    expect(mismatch.paths).toEqual([{ path: 'ledgers.0.ledger_balance', source: lines[0]!.ledgers[0].ledger_balance, platform: '12345.67' }]);
    expect(mismatch.paths_count).toBe(1);
    expect(report.summary.classes).toEqual({ matched: lines.length - 3, missing: 2, not_final: 0, failed: 0, mismatched: 1, extra: 0 });
    // Totals: the book has two accounts the platform does not, and one balance differs.
    expect(report.summary.totals.source.accounts - report.summary.totals.platform.accounts).toBe(2);
    expect(report.summary.totals.platform.ledger_balances).not.toBe(report.summary.totals.source.ledger_balances);

    // A value altered in the payment instructions' table names its account too.
    const full = lines.find((l) => String(l.external_account_number).startsWith('REC-EDGE-FULL-'))!;
    const fullRow = await s.t.db('accounts').where({ import_supplier: 'DEMO_ENERGY', external_account_number: full.external_account_number }).first();
    await s.t.db('payment_instructions').where({ account_id: fullRow.id }).update({ sort_code: '089998' });
    const onlyFull = path.join(dir, 'only-full.ndjson');
    fs.writeFileSync(onlyFull, `${JSON.stringify(full)}\n`);
    const tampered = await runReconcile({ input: onlyFull, apiKey: s.apiKey, apiUrl, progress: 'none' });
    expect(tampered.classes.mismatched).toBe(1);
    const named = readReport(`${onlyFull}.reconcile`).accounts.find((a) => a.class === 'mismatched')!;
    expect([named.external_account_number, named.paths]).toEqual([full.external_account_number, [{ path: 'payment_instructions.0.sort_code', source: '****99', platform: '****98' }]]);

    // A character the read-back masks: the key without the permission reads masked and is told the
    // difference is within the masked bank details (each listed, within_mask); a key given the
    // permission compares in clear and names the exact path. Never a clear bank detail in a report.
    await s.t.db('payment_instructions').where({ account_id: fullRow.id }).update({ sort_code: '189999' });
    const hidden = await runReconcile({ input: onlyFull, apiKey: s.apiKey, apiUrl, progress: 'none', reportPrefix: path.join(dir, 'bank-masked') });
    expect(hidden.classes.mismatched).toBe(1);
    expect(readReport(path.join(dir, 'bank-masked')).accounts.find((a) => a.class === 'mismatched')!.paths).toEqual([
      { path: 'payment_instructions.0.sort_code', source: '****99', platform: '****99', within_mask: true },
      { path: 'payment_instructions.0.bank_account_number', source: '****4958', platform: '****4958', within_mask: true },
    ]);
    const permitted = await s.authKey('DEMO_ENERGY');
    expect(await setKeyRevealsBankDetails(s.t.db, permitted.keyId, true)).toBe(true);
    const exact = await runReconcile({ input: onlyFull, apiKey: permitted.apiKey, apiUrl, progress: 'none', reportPrefix: path.join(dir, 'bank-clear') });
    expect(exact.classes.mismatched).toBe(1);
    expect(readReport(path.join(dir, 'bank-clear')).accounts.find((a) => a.class === 'mismatched')!.paths).toEqual([{ path: 'payment_instructions.0.sort_code', source: '****99', platform: '****99' }]);
    for (const prefix of ['bank-masked', 'bank-clear']) {
      for (const ext of ['json', 'csv']) expect(fs.readFileSync(path.join(dir, `${prefix}.${ext}`), 'utf8')).not.toMatch(/089999|189999|66374958/);
    }

    // The value put back: the full account matches again for the tranche checks below.
    await s.t.db('payment_instructions').where({ account_id: fullRow.id }).update({ sort_code: '089999' });

    // So does a value altered in one of the platform's tables (db/stores/platformTables.ts).
    await s.t.db('meter_point_configuration_periods').where({ account_id: fullRow.id }).update({ measurement_class: 'C' });
    const platformTampered = await runReconcile({ input: onlyFull, apiKey: s.apiKey, apiUrl, progress: 'none', reportPrefix: path.join(dir, 'platform-tamper') });
    expect(platformTampered.classes.mismatched).toBe(1);
    const namedAgain = readReport(path.join(dir, 'platform-tamper')).accounts.find((a) => a.class === 'mismatched')!;
    expect([namedAgain.external_account_number, namedAgain.paths]).toEqual([
      full.external_account_number,
      [{ path: 'supply_addresses.0.meter_points.0.configuration_periods.0.measurement_class', source: 'A', platform: 'C' }],
    ]);
    await s.t.db('meter_point_configuration_periods').where({ account_id: fullRow.id }).update({ measurement_class: 'A' });

    // Accounts imported but left out of the book: counted by default (a tranche is signed off
    // alone: not a finding, not in the report), listed as extra with --extras list; either way in
    // bulk (one totals request, listing pages), never one request per account.
    const shorter = path.join(dir, 'shorter.ndjson');
    fs.writeFileSync(shorter, `${lines.slice(3).map((l) => JSON.stringify(l)).join('\n')}\n`);
    const counted = await runReconcile({ input: shorter, apiKey: s.apiKey, apiUrl, progress: 'none' });
    // Left out: the altered one and one matched (the deleted one is not imported any more).
    expect([counted.extrasMode, counted.outside, counted.classes.extra]).toEqual(['count', 2, 2]);
    expect(counted.requests).toEqual({ digests: 1, accounts: 0, totals: 1, listing: 0 });
    expect(readReport(`${shorter}.reconcile`).accounts.filter((a) => a.class === 'extra')).toEqual([]);
    // The one never sent is missing: a finding whatever the mode.
    expect(counted.verdict).toBe('findings');
    const summary = await runReconcile({ input: shorter, apiKey: s.apiKey, apiUrl, progress: 'none', extras: 'list' });
    expect(summary.classes.extra).toBe(2);
    expect(summary.requests).toEqual({ digests: 1, accounts: 0, totals: 1, listing: 1 });
    const extra = readReport(`${shorter}.reconcile`).accounts.filter((a) => a.class === 'extra');
    expect(extra.map((a) => a.external_account_number).sort()).toEqual([altered, lines[2]!.external_account_number].sort());

    // A tranche: accounts all matched, the supplier holding others. Signed off alone (exit 0), its
    // totals those of its accounts as stored; the whole supplier's beside them.
    const tranche = path.join(dir, 'tranche.ndjson');
    fs.writeFileSync(tranche, `${lines.slice(3, -1).map((l) => JSON.stringify(l)).join('\n')}\n`);
    const signed = await runCli(['reconcile', '--input', tranche, '--api-url', apiUrl, '--api-key', s.apiKey, '--progress', 'none'], {});
    expect([signed.code, signed.stderr]).toEqual([0, '']);
    expect(signed.stdout).toMatch(/— EVERY ACCOUNT MATCHED/);
    expect(signed.stdout).toMatch(/extra +2 +imported for the supplier, not in this book: counted, not a finding/);
    expect(signed.stdout).not.toContain('≠');
    const t = readReport(`${tranche}.reconcile`).summary;
    expect(t.totals.source).toEqual(t.totals.platform);
    expect(t.totals.supplier!.accounts).toBe(t.totals.source.accounts + 2);
    expect(t.phases.map((p) => p.phase)).toEqual(['reading the book', 'digests', 'totals']);
    // The same tranche as the whole supplier: only the extras are found (exit 3); none asked (off): exit 0.
    const whole = await runCli(['reconcile', '--input', tranche, '--api-url', apiUrl, '--api-key', s.apiKey, '--progress', 'none', '--extras', 'list'], {});
    expect([whole.code, whole.stderr]).toEqual([3, expect.stringContaining('the supplier holds 2 accounts outside it')]);
    expect(whole.stdout).toContain('BUT THE SUPPLIER HOLDS ACCOUNTS OUTSIDE IT');
    const off = await runCli(['reconcile', '--input', tranche, '--api-url', apiUrl, '--api-key', s.apiKey, '--progress', 'none', '--extras', 'off'], {});
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/extra +- +not asked \(--extras off\)/);
  });
});
