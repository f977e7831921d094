import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { chromium, Browser, Page } from 'playwright-core';
import { eventually, silentLog, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { runCli } from '../unit/cli/runCli';
import { findProcess, transition, upsertRun } from '../../imports/store';
import { createSupplier } from '../../suppliers/store';
import { insertRegistrations } from '../../registration/store';
import { importWorkflowId } from '../../imports/workflowId';
import { createOpsApp, startOpsServer } from '../../ops/server';
import { loadConfig } from '../../lib/config';
import { AffectedImportsSchema, BuildsSchema, ImportRecordSchema, SummarySchema, TrancheSchema } from '../../ops/schema';
import { deployStatus } from '../../deploys/status';
import { buildOpsOpenApiDocument } from '../../ops/openapi';

/**
 * The operations page as a person sees it: a real headless Chromium (Debian's package, driven by
 * playwright-core) against the ops listener, over imports that reached their states through the
 * real API, worker and Temporal server (and, for ERRORED and a backdated history, the real stores).
 *
 * OPS_SCREENSHOT=<file> saves the page (`npm run screenshot:ops` writes docs/ops-page.png).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TEMPORAL_UI = 'http://temporal.example:8233';
const HISTORY = 'NIGHT_SHIFT_ENERGY';
const EMAIL = 'night.owl@example.invalid';

describe('the operations page in a browser', () => {
  let s: Stack;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const X = (name: string) => s.ext(name);
  const api = () => s.request();
  const post = (body: unknown) => api().post('/v2/data-import/accounts/').send(body as object);
  const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();
  const statusOf = async (ext: string, supplier = 'DEMO_ENERGY') => (await findProcess(s.t.db, supplier, ext))?.status;
  const waitStatus = (ext: string, status: string) => eventually(async () => (await statusOf(ext)) === status, 45_000);
  const text = (selector: string) => page.locator(selector).first().innerText();

  /** An import through the real store that ends ERRORED with the given code. */
  async function errored(ext: string, code: string, supplier = 'DEMO_ENERGY', at = new Date()) {
    const p = await s.t.db.transaction((trx) =>
      upsertRun(trx, null, {
        importSupplier: supplier,
        externalAccountNumber: ext,
        payload: uniqueAccount(ext),
        taskParams: {},
        isDryRun: false,
        scheduleWindowStart: at,
        scheduleWindowEnd: new Date(at.getTime() + 86_400_000),
        workflowId: importWorkflowId(supplier, ext),
        warnings: [],
        now: at,
      }),
    );
    await transition(s.t.db, p.id, p.run, { status: 'ERRORED', error: { code, detail: `the detail of ${ext} may quote ${EMAIL}`, domain: 'import_process' }, at: new Date(at.getTime() + 4000) });
  }

  /**
   * A night of a second supplier, written through the real store functions with backdated times:
   * what the screenshot shows, and the "all suppliers" view adds up.
   */
  async function history() {
    await createSupplier(s.t.db, HISTORY, { status: 'Ongoing', marketParticipantId: 'NIGHT' });
    const now = Date.now();
    const codes = ['import_process_failed_validation', 'import_process_failed_validation', 'account_creation_failed', 'import_process_infrastructure_unavailable'];
    for (let i = 0; i < 240; i++) {
      const ext = `NS-${String(i).padStart(5, '0')}-${s.id}`;
      // One every ~42 s up to now, with a slow patch in the latency; the last 15 were just
      // created and still wait.
      const at = i < 225 ? new Date(now - (226 - i) * 42_000 + (i % 7) * 3000) : new Date(now - (240 - i) * 2000);
      if (i % 23 === 5) {
        await errored(ext, codes[i % codes.length]!, HISTORY, at);
        continue;
      }
      const p = await upsertRun(s.t.db, null, {
        importSupplier: HISTORY,
        externalAccountNumber: ext,
        payload: {},
        taskParams: {},
        isDryRun: false,
        scheduleWindowStart: at,
        scheduleWindowEnd: new Date(at.getTime() + 86_400_000),
        workflowId: importWorkflowId(HISTORY, ext),
        warnings: [],
        now: at,
      });
      if (i >= 225) continue; // still PENDING
      const latency = 900 + ((i * 7919) % 2400) + (i > 120 && i < 150 ? 6000 : 0);
      await transition(s.t.db, p.id, p.run, { status: 'IN_PROGRESS', at: new Date(at.getTime() + 200) });
      await transition(s.t.db, p.id, p.run, { status: 'PROCESSED', krakenIdentifier: `A-${i}`, at: new Date(at.getTime() + latency) });
    }
  }

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: scripts/test.sh installs Debian's chromium package; or set CHROMIUM_PATH`);
    }
    s = await startStack();
    // Three imported accounts, a dry run, two waiting for tomorrow's window (one is then cancelled).
    for (const name of ['OK-1', 'OK-2', 'OK-3']) expect((await post(uniqueAccount(X(name)))).status).toBe(201);
    expect((await post({ payload: uniqueAccount(X('DRY-1')), task_params: { is_dry_run: true } })).status).toBe(201);
    for (const name of ['LATER-1', 'LATER-2']) {
      const window = { schedule_window_start: inDays(1), schedule_window_end: inDays(2) };
      expect((await post({ payload: uniqueAccount(X(name)), task_params: window })).status).toBe(201);
    }
    for (const name of ['OK-1', 'OK-2', 'OK-3']) await waitStatus(X(name), 'PROCESSED');
    await waitStatus(X('DRY-1'), 'DRY_RUN_SUCCEEDED');
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', X('LATER-2')))?.workflowRunId);
    await s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', X('LATER-2'))).cancel();
    await waitStatus(X('LATER-2'), 'CANCELLED');
    await errored(X('BAD-2'), 'tariff_code_not_found');
    await errored(X('BAD-1'), 'tariff_code_not_found');
    await errored(X('BAD-3'), 'account_creation_failed');

    // A customer e-mail queued and a meter point marked for registration, for OK-1's account.
    const account = (await s.t.db('accounts').where({ external_account_number: X('OK-1') }).first('id', 'number'))!;
    await s.t.db('customer_email_queue').insert({ account_number: account.number, user_number: 'U-1', email: EMAIL, template: 'welcome' });
    const mp = (await s.t.db('meter_points').where({ account_id: account.id }).orderBy('id').first('id', 'identifier', 'supply_type'))!;
    await insertRegistrations(s.t.db, [
      {
        meterPointId: Number(mp.id),
        accountId: Number(account.id),
        accountNumber: account.number,
        importSupplier: 'DEMO_ENERGY',
        externalAccountNumber: X('OK-1'),
        mpxn: mp.identifier,
        supplyType: mp.supply_type,
        supplyStartDate: '2030-01-01',
        supplierMpid: 'DEMO',
        requestedBy: 'test',
        requestedAt: new Date(),
        eventId: crypto.randomUUID(),
      },
    ]);
    await history();

    server = http.createServer(
      createOpsApp({ db: s.t.db, log: silentLog, temporal: { uiUrl: TEMPORAL_UI, namespace: 'default' }, deployment: () => deployStatus(s.client, s.config) }).callback(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1440, height: 1200 } });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await s?.stop();
  });

  it('shows the counts, share, rate, time left and outbox of one supplier', async () => {
    await page.goto(`${base}/?supplier=DEMO_ENERGY`);
    await page.locator('[data-status="PROCESSED"] .count').first().waitFor();
    const count = (status: string) => text(`#status-table [data-status="${status}"] .count`);
    expect(await count('PROCESSED')).toBe('3');
    expect(await count('PENDING')).toBe('1');
    expect(await count('DRY_RUN_SUCCEEDED')).toBe('1');
    expect(await count('CANCELLED')).toBe('1');
    expect(await count('ERRORED')).toBe('3');
    expect(await count('IN_PROGRESS')).toBe('0');
    expect(await text('#share')).toBe('33.3 %'); // 3 of 9
    expect(await text('#share-detail')).toBe('3 of 9 imports PROCESSED');
    expect(await text('#errored')).toBe('3');

    const summary = (await fetch(`${base}/api/summary?supplier=DEMO_ENERGY`).then((r) => r.json())) as { rate: { processed_per_minute: number; eta_seconds: number } };
    // 3 PROCESSED in the last 10 minutes, 1 PENDING left.
    expect(summary.rate.processed_per_minute).toBeGreaterThanOrEqual(0.3);
    expect(summary.rate.processed_per_minute).toBeLessThanOrEqual(0.34);
    expect(await text('#rate')).toBe(summary.rate.processed_per_minute.toFixed(1));
    expect(await text('#eta')).toBe(`${Math.round(summary.rate.eta_seconds / 60)} min`);
    expect(await text('#eta-detail')).toMatch(/^1 PENDING or IN_PROGRESS · done ≈ \d\d:\d\d$/);
    expect(await text('#registrations-table [data-status="MARKED"] .count')).toBe('1');
    expect(await text('#emails-table [data-status="QUEUED"] .count')).toBe('1');
    expect(await text('#outbox-backlog')).toMatch(/^\d+$/);
  });

  it('shows the progress of the tranche whose book the operator picks, beside the supplier\'s totals', async () => {
    const book = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-tranche-')), 'tranche-2.ndjson');
    const line = (ext: string) => JSON.stringify({ import_supplier: 'DEMO_ENERGY', external_account_number: ext, customers: [] });
    fs.writeFileSync(book, `${[X('OK-1'), X('OK-2'), X('BAD-1'), X('LATER-1'), X('NEVER-1')].map(line).join('\n')}\nnot json\n`);
    await page.goto(`${base}/`);
    await page.locator('#tranche-book').setInputFiles(book);
    await eventually(async () => (await text('#tranche-detail')).includes('PROCESSED'), 15_000);
    expect(await text('#tranche-detail')).toBe('tranche-2.ndjson — DEMO_ENERGY: 2 of 5 PROCESSED (40.0 %), 2 to go · the supplier: 3 PROCESSED in all');
    expect(await text('#tranche-table [data-tranche-status="ERRORED"] .num')).toBe('1');
    expect(await text('#tranche-table [data-tranche-status="not started"] .num')).toBe('1');
    // The book's supplier is selected: the tiles beside it are the supplier's.
    expect(await page.locator('#supplier').inputValue()).toBe('DEMO_ENERGY');
  });

  it('shows which builds run imports: the stack\'s build, current, with its worker and the import waiting for tomorrow', async () => {
    const row = page.locator('#builds-table tr[data-build="test"]');
    await row.waitFor();
    expect(await row.getAttribute('data-build-status')).toBe('CURRENT');
    expect(await text('#builds-table tr[data-build="test"] .workers')).toBe('1');
    // LATER-1 waits for its window, pinned to the build its first task ran on.
    expect(await text('#builds-table tr[data-build="test"] .open-imports')).toBe('1');
    expect(await text('#routing')).toMatch(/^New imports start on test · 1 open import$/);
    expect(await page.locator('#deployment-link').getAttribute('href')).toBe(`${TEMPORAL_UI}/namespaces/default/worker-deployments/${s.taskQueue}`);
  });

  it('lists the top error codes, opens the affected accounts and links each to its record and its workflow', async () => {
    const rows = page.locator('#errors-table tr[data-error-code]');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-error-code'), tr.querySelector('.count')!.textContent]))).toEqual([
      ['tariff_code_not_found', '2'],
      ['account_creation_failed', '1'],
    ]);
    await page.locator('tr[data-error-code="tariff_code_not_found"] button').click();
    const accounts = page.locator('tr[data-accounts-of="tariff_code_not_found"] tr[data-account]');
    await accounts.nth(1).waitFor();
    expect(await accounts.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-account')))).toEqual([X('BAD-1'), X('BAD-2')]);
    const temporal = await page.locator(`tr[data-account="${X('BAD-1')}"] a.temporal-link`).getAttribute('href');
    expect(temporal).toBe(`${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(importWorkflowId('DEMO_ENERGY', X('BAD-1')))}`);

    await page.locator(`tr[data-account="${X('BAD-1')}"] a.record-link`).click();
    await page.locator('#record:not([hidden]) dd[data-field="status"]').waitFor();
    expect(page.url()).toBe(`${base}/?supplier=DEMO_ENERGY#/imports/DEMO_ENERGY/${encodeURIComponent(X('BAD-1'))}`);
    expect(await text('#record-title')).toBe(`DEMO_ENERGY / ${X('BAD-1')}`);
    expect(await text('dd[data-field="status"]')).toBe('ERRORED');
    expect(await text('dd[data-field="error code"]')).toBe('tariff_code_not_found');
    expect(await page.locator('#record-temporal').getAttribute('href')).toBe(temporal);
    await page.keyboard.press('Escape');
    await page.locator('#record').waitFor({ state: 'hidden' });
  });

  it('shows no personal data: no names, e-mail addresses, postal addresses or error details', async () => {
    const body = await page.locator('body').innerText();
    const json = await (await fetch(`${base}/api/summary`)).text();
    const account = uniqueAccount('x') as { customers: { given_name?: string; family_name?: string; email?: string }[]; billing_name?: string; billing_address1?: string; billing_postcode?: string };
    const personal = [
      EMAIL,
      'may quote',
      ...account.customers.flatMap((c) => [c.given_name, c.family_name, c.email]),
      account.billing_name,
      account.billing_address1,
      account.billing_postcode,
    ];
    for (const value of personal.filter((v): v is string => typeof v === 'string' && v.length > 2)) {
      expect(body).not.toContain(value);
      expect(json).not.toContain(value);
    }
  });

  it('adds up every supplier, draws the charts, and refreshes itself without reloading the page', async () => {
    await page.goto(`${base}/`);
    await page.locator('#status-table [data-status="PROCESSED"] .count').first().waitFor();
    // 3 of DEMO_ENERGY + 240 - 11 errored - 14 pending of the backdated night.
    await eventually(async () => (await text('#status-table [data-status="PROCESSED"] .count')) === '218', 10_000);
    expect(await page.locator('#chart-rate canvas').count()).toBe(1);
    expect(await page.locator('#chart-latency canvas').count()).toBe(1);
    if (process.env.OPS_SCREENSHOT) {
      await page.selectOption('#supplier', HISTORY);
      await eventually(async () => (await text('#share-detail')).includes('of 240'), 10_000);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.resolve(process.env.OPS_SCREENSHOT), fullPage: true });
      await page.selectOption('#supplier', '');
      await eventually(async () => (await text('#status-table [data-status="PROCESSED"] .count')) === '218', 10_000);
    }

    await page.evaluate(() => ((globalThis as unknown as { stillThisPage: boolean }).stillThisPage = true));
    expect((await post(uniqueAccount(X('OK-4')))).status).toBe(201);
    await waitStatus(X('OK-4'), 'PROCESSED');
    await eventually(async () => (await text('#status-table [data-status="PROCESSED"] .count')) === '219', 15_000);
    expect(await page.evaluate(() => (globalThis as unknown as { stillThisPage?: boolean }).stillThisPage)).toBe(true);
  });
});

describe('the JSON behind the operations page', () => {
  let s: Stack;
  const ajv = addFormats(new Ajv({ strict: false }));
  let temporalAway = false;
  const deployment = () => (temporalAway ? Promise.reject(new Error('14 UNAVAILABLE: No connection established')) : deployStatus(s.client, s.config));
  const ops = (token?: string) => request(createOpsApp({ db: s.t.db, log: silentLog, temporal: { uiUrl: TEMPORAL_UI, namespace: 'ns-1' }, token, deployment }).callback());

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
    const now = new Date();
    for (const [ext, code] of [['J-1', 'boom'], ['J-2', 'boom'], ['J-3', 'boom'], ['J-4', 'bang']] as const) {
      const p = await upsertRun(s.t.db, null, {
        importSupplier: 'DEMO_ENERGY',
        externalAccountNumber: ext,
        payload: {},
        taskParams: {},
        isDryRun: false,
        scheduleWindowStart: now,
        scheduleWindowEnd: new Date(now.getTime() + 86_400_000),
        workflowId: importWorkflowId('DEMO_ENERGY', ext),
        warnings: [],
        now,
      });
      await transition(s.t.db, p.id, p.run, { status: 'ERRORED', error: { code, detail: 'x', domain: 'import_process' }, at: now });
    }
  });
  afterAll(async () => {
    await s.stop();
  });

  it('answers the progress of a tranche from its account numbers, in the documented shape; bad bodies 400, an unknown supplier 404', async () => {
    const t = await ops().post('/api/tranche').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: ['J-1', 'J-2', 'J-4', 'J-1', 'NEVER'] });
    expect(t.status).toBe(200);
    expect(ajv.validate(TrancheSchema, t.body)).toBe(true);
    expect(t.body).toEqual({ import_supplier: 'DEMO_ENERGY', accounts: 4, by_status: { ERRORED: 3 }, not_started: 1, processed_share: 0, remaining: 1 });
    for (const body of [{}, { import_supplier: 'DEMO_ENERGY' }, { import_supplier: 'DEMO_ENERGY', external_account_numbers: [] }, { import_supplier: 'DEMO_ENERGY', external_account_numbers: [7] }, { import_supplier: 'DEMO_ENERGY', external_account_numbers: ['J-1'], extra: 1 }, []]) {
      const bad = await ops().post('/api/tranche').send(body);
      expect([bad.status, bad.body.code]).toEqual([400, 'validation_error']);
    }
    // What a body parses to is bounded by the tranche's shape, before it is parsed (issue 47).
    const empties = await ops().post('/api/tranche').set('content-type', 'application/json').send(`{"import_supplier":"DEMO_ENERGY","external_account_numbers":[${'{},'.repeat(200_000)}{}]}`);
    expect([empties.status, empties.body.code]).toEqual([413, 'payload_too_large']);
    const deep = await ops().post('/api/tranche').set('content-type', 'application/json').send(`{"external_account_numbers":${'['.repeat(5_000)}${']'.repeat(5_000)}}`);
    expect([deep.status, deep.body.code]).toEqual([413, 'payload_too_large']);
    const unreadable = await ops().post('/api/tranche').set('content-type', 'application/json').send('{');
    expect([unreadable.status, unreadable.body.code]).toEqual([400, 'parse_error']);
    const unknown = await ops().post('/api/tranche').send({ import_supplier: 'NOPE', external_account_numbers: ['J-1'] });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    expect((await ops('secret').post('/api/tranche').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: ['J-1'] })).status).toBe(401);
    expect((await ops().delete('/api/tranche')).status).toBe(405);

    // The CLI: imports summary --book, the same numbers beside the supplier's.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-tranche-'));
    const book = path.join(dir, 'tranche.ndjson');
    fs.writeFileSync(book, `${['J-1', 'J-2', 'J-4', 'NEVER'].map((e) => JSON.stringify({ import_supplier: 'DEMO_ENERGY', external_account_number: e })).join('\n')}\n`);
    const env = { DATABASE_URL: s.t.url, TEMPORAL_UI_URL: TEMPORAL_UI, TEMPORAL_NAMESPACE: 'ns-1' };
    const asJson = await runCli(['imports', 'summary', '--book', book, '--json'], env);
    expect(asJson.code).toBe(0);
    const fromCli = JSON.parse(asJson.stdout);
    expect(fromCli.import_supplier).toBe('DEMO_ENERGY');
    expect(fromCli.tranches).toEqual([t.body]);
    const human = await runCli(['imports', 'summary', '--book', book], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/tranche \(book\):\s+\S*tranche\.ndjson/);
    expect(human.stdout).toMatch(/not started:\s+1/);
    expect((await runCli(['imports', 'summary', '--book', path.join(dir, 'none.ndjson')], env)).code).toBe(1);
  });

  it('answers the documented shapes', async () => {
    const summary = await ops().get('/api/summary?supplier=DEMO_ENERGY&hours=1');
    expect(summary.status).toBe(200);
    expect(ajv.validate(SummarySchema, summary.body)).toBe(true);
    expect(summary.body.errors).toEqual([{ code: 'boom', count: 3 }, { code: 'bang', count: 1 }]);
    expect(summary.body.rate).toMatchObject({ processed_per_minute: 0, remaining: 0, eta_seconds: 0 });

    const page1 = await ops().get('/api/errors?supplier=DEMO_ENERGY&code=boom&limit=2');
    expect(ajv.validate(AffectedImportsSchema, page1.body)).toBe(true);
    expect(page1.body.items.map((i: { external_account_number: string }) => i.external_account_number)).toEqual(['J-1', 'J-2']);
    expect(page1.body.items[0]).toMatchObject({
      record_url: '/api/imports/DEMO_ENERGY/J-1',
      api_status_path: '/v2/data-import/accounts/DEMO_ENERGY/J-1/',
      temporal_url: `${TEMPORAL_UI}/namespaces/ns-1/workflows/${encodeURIComponent('account-import:DEMO_ENERGY:J-1')}`,
    });
    const page2 = await ops().get(`/api/errors?supplier=DEMO_ENERGY&code=boom&limit=2&after=${page1.body.next}`);
    expect(page2.body).toMatchObject({ items: [{ external_account_number: 'J-3' }], next: null });

    const record = await ops().get('/api/imports/DEMO_ENERGY/J-4');
    expect(ajv.validate(ImportRecordSchema, record.body)).toBe(true);
    expect(record.body).toMatchObject({ status: 'ERRORED', latest_error: { code: 'bang', domain: 'import_process' } });

    const doc = await ops().get('/openapi.json');
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(buildOpsOpenApiDocument())));
    expect(Object.keys(doc.body.paths)).toEqual(['/api/summary', '/api/tranche', '/api/errors', '/api/builds', '/api/imports/{supplier}/{external_account_number}']);

    // No worker has started on this task queue: a deployment with no build yet.
    const builds = await ops().get('/api/builds');
    expect(builds.status).toBe(200);
    expect(ajv.validate(BuildsSchema, builds.body)).toBe(true);
    expect(builds.body).toMatchObject({ deployment: s.taskQueue, current_build_id: null, builds: [], temporal_url: `${TEMPORAL_UI}/namespaces/ns-1/worker-deployments/${s.taskQueue}` });
    temporalAway = true;
    try {
      const away = await ops().get('/api/builds');
      expect([away.status, away.body.code]).toEqual([503, 'service_unavailable']);
      expect((await ops().get('/api/summary')).status).toBe(200);
    } finally {
      temporalAway = false;
    }
  });

  it('answers bad input with a stable code, never a 500', async () => {
    const cases: [string, number, string][] = [
      ['/api/summary?supplier=NOPE', 404, 'not_found'],
      ['/api/summary?hours=0', 400, 'validation_error'],
      ['/api/summary?hours=abc', 400, 'validation_error'],
      ['/api/summary?hours=1&hours=2', 400, 'validation_error'],
      ['/api/summary?colour=red', 400, 'validation_error'],
      ['/api/errors', 400, 'validation_error'],
      ['/api/errors?code=boom&after=%%%', 400, 'validation_error'],
      ['/api/errors?code=boom&limit=100000', 400, 'validation_error'],
      ['/api/imports/DEMO_ENERGY/NOPE', 404, 'not_found'],
      ['/api/builds?x=1', 400, 'validation_error'],
      ['/nothing-here', 404, 'not_found'],
    ];
    for (const [url, status, code] of cases) {
      const res = await ops().get(url);
      expect([url, res.status, res.body.code]).toEqual([url, status, code]);
    }
    const post = await ops().post('/api/summary').send({ a: 1 });
    expect([post.status, post.body.code]).toEqual([405, 'method_not_allowed']);
  });

  it('requires the operator token when one is configured, as a Basic password or a Bearer token', async () => {
    const token = 'a-long-operator-token-123';
    const none = await ops(token).get('/api/summary');
    expect([none.status, none.body.code]).toEqual([401, 'not_authenticated']);
    expect(none.headers['www-authenticate']).toMatch(/^Basic /);
    const wrong = await ops(token).get('/').set('Authorization', 'Bearer nope');
    expect([wrong.status, wrong.body.code]).toEqual([401, 'authentication_failed']);
    expect((await ops(token).get('/api/summary').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    expect((await ops(token).get('/').auth('lead', token)).status).toBe(200);
    expect((await ops(token).get('/assets/ops.js').auth('lead', 'wrong')).status).toBe(401);
  });

  it('starts on OPS_BIND, and a second API replica on the same machine goes on without it', async () => {
    const config = loadConfig({ DATABASE_URL: s.t.url, OPS_BIND: '127.0.0.1:0' });
    const first = (await startOpsServer(config, { db: s.t.db, log: silentLog, deployment }))!;
    try {
      expect((await fetch(`${first.url}api/summary`)).status).toBe(200);
      const port = new URL(first.url).port;
      const second = await startOpsServer(loadConfig({ DATABASE_URL: s.t.url, OPS_BIND: `127.0.0.1:${port}` }), { db: s.t.db, log: silentLog, deployment });
      expect(second).toBeNull();
      expect(await startOpsServer(loadConfig({ OPS_BIND: 'off' }), { db: s.t.db, log: silentLog, deployment })).toBeNull();
    } finally {
      await first.close();
    }
  });

  it('prints the same numbers in the CLI: imports summary', async () => {
    const env = { DATABASE_URL: s.t.url, TEMPORAL_UI_URL: TEMPORAL_UI, TEMPORAL_NAMESPACE: 'ns-1' };
    const asJson = await runCli(['imports', 'summary', '--supplier', 'DEMO_ENERGY', '--json'], env);
    expect(asJson.code).toBe(0);
    const fromCli = JSON.parse(asJson.stdout);
    const fromPage = (await ops().get('/api/summary?supplier=DEMO_ENERGY')).body;
    expect({ ...fromCli, generated_at: null, outbox: null }).toEqual({ ...fromPage, generated_at: null, outbox: null });

    const human = await runCli(['imports', 'summary', '--supplier', 'DEMO_ENERGY'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/imports:\s+4/);
    expect(human.stdout).toMatch(/boom\s+3/);
    const unknown = await runCli(['imports', 'summary', '--supplier', 'NOPE'], env);
    expect(unknown.code).toBe(1);
  });
});
