import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { startStack, Stack } from '../support/stack';
import { londonToday } from '../../account/dates';
import { writeBook, type ExpectedError } from '../../cli/generate';
import { runMigration, type MigrationSummary } from '../../cli/migrate';
import type { StateDocument } from '../../cli/migrate/state';

jest.setTimeout(240_000);

// Workflow ids are business keys (account-import:<supplier>:<external>) on the shared Temporal
// server, and an imported account's workflow may stay open after PROCESSED (post-import): each
// run of this file uses its own external account numbers.
const RUN = crypto.randomBytes(3).toString('hex');

interface ReportEntry {
  external_account_number: string;
  final_status: string;
  kraken_identifier: string | null;
  errors: { code: string; attr: string; detail: string }[];
}

function readReport(prefix: string): { summary: MigrationSummary; accounts: ReportEntry[] } {
  return JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8'));
}

/** Every account of the book: invalid ones VALIDATION_FAILED with exactly their expected error, the rest PROCESSED. */
function expectComplete(accounts: ReportEntry[], count: number, expected: Record<string, ExpectedError>): void {
  expect(accounts).toHaveLength(count);
  for (const a of accounts) {
    const e = expected[a.external_account_number];
    if (e) {
      expect(a).toEqual({ external_account_number: a.external_account_number, import_supplier: 'DEMO_ENERGY', final_status: 'VALIDATION_FAILED', kraken_identifier: null, errors: [{ code: e.code, attr: e.attr, detail: expect.any(String) }], book: expect.any(String) });
    } else {
      expect(a).toEqual({ external_account_number: a.external_account_number, import_supplier: 'DEMO_ENERGY', final_status: 'PROCESSED', kraken_identifier: expect.stringMatching(/^A-[0-9A-F]{8}$/), errors: [], book: expect.any(String) });
    }
  }
}

describe('data-import migrate against the real service', () => {
  let s: Stack;
  let server: http.Server;
  let apiUrl: string;
  let dir: string;
  /** Create calls per external account number, counted in front of the real routes. */
  const creates = new Map<string, number>();
  /** Called after each status answer the API gives (the interrupt test hooks in here). */
  let onStatus: (status: string) => void = () => undefined;
  /** Bulk status requests the API answered 200. */
  let bulkStatusRequests = 0;

  beforeAll(async () => {
    s = await startStack();
    // The API writes its JSON inside its error middleware (http/middleware/jsonResponse.ts): out
    // here, in front of it, an answer's body is that text.
    const answer = (ctx: Koa.Context): unknown => (typeof ctx.body === 'string' ? JSON.parse(ctx.body) : ctx.body);
    const counter: Koa.Middleware = async (ctx, next) => {
      await next();
      if (ctx.method === 'POST' && ctx.path === '/v2/data-import/accounts/') {
        const body = ctx.request.body as { external_account_number?: string; payload?: { external_account_number?: string } } | undefined;
        const ext = body?.external_account_number ?? body?.payload?.external_account_number ?? '?';
        creates.set(ext, (creates.get(ext) ?? 0) + 1);
      }
      if (ctx.method === 'GET' && ctx.path.startsWith('/v2/data-import/accounts/') && ctx.status === 200) {
        onStatus((answer(ctx) as { status: string }).status);
      }
      // The client follows its imports with the bulk status operation: each record is an answer.
      if (ctx.method === 'POST' && ctx.path === '/v2/data-import/accounts/statuses/' && ctx.status === 200) {
        bulkStatusRequests++;
        for (const r of (answer(ctx) as { results: { status: string }[] }).results) onStatus(r.status);
      }
    };
    s.app.middleware.unshift(counter);
    server = http.createServer(s.app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-'));
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports the valid accounts of a book and reports each invalid one with its expected code and attr', async () => {
    const input = path.join(dir, 'book.ndjson');
    const book = await writeBook({ seed: 'migrate-1', count: 60, prefix: `MIG1-${RUN}-`, today: londonToday(new Date()), profile: 'mixed', invalidShare: 0.1, out: input });
    const expected: Record<string, ExpectedError> = JSON.parse(fs.readFileSync(book.expectedFile!, 'utf8'));
    expect(Object.keys(expected)).toHaveLength(6);

    bulkStatusRequests = 0;
    const summary = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 8, pollIntervalMs: 200, progress: 'none' });

    expect(summary.counts).toEqual({ PROCESSED: 54, VALIDATION_FAILED: 6 });
    // Followed with the bulk status operation: every status request was one, far fewer than accounts polled.
    expect(bulkStatusRequests).toBeGreaterThan(0);
    expect(summary.requests.status).toBe(bulkStatusRequests);
    expect(summary.interrupted).toBe(false);
    expect(summary.requests.create).toBe(60);
    expect(summary.latencyMs.samples).toBe(54);
    const report = readReport(`${input}.report`);
    expectComplete(report.accounts, 60, expected);
    const csv = fs.readFileSync(`${input}.report.csv`, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('external_account_number,final_status,kraken_identifier,error_code,attr,detail,book');
    // Each account records the book (tranche) it came in with, in the report and the state.
    expect(new Set(report.accounts.map((a) => (a as { book?: string }).book))).toEqual(new Set([path.resolve(input)]));
    const stateDoc = JSON.parse(fs.readFileSync(`${input}.migrate-state.json`, 'utf8')) as { accounts: Record<string, { book?: string }> };
    expect(Object.values(stateDoc.accounts).every((a) => a.book === path.resolve(input))).toBe(true);
    expect(summary.phases.map((p) => p.phase)).toEqual(['reading the book', 'sending', 'following']);
    expect(summary.phases.find((p) => p.phase === 'following')!.count).toBe(54);
    expect(csv).toHaveLength(61);
    for (const [ext, e] of Object.entries(expected)) {
      expect(csv.filter((line) => line.startsWith(`${ext},VALIDATION_FAILED,,${e.code},${e.attr},`))).toHaveLength(1);
    }
  });

  it('stages a book (--stage), then imports what was staged (--process-staged) without a single create', async () => {
    const input = path.join(dir, 'staged.ndjson');
    const book = await writeBook({ seed: 'migrate-3', count: 30, prefix: `MIG3-${RUN}-`, today: londonToday(new Date()), invalidShare: 0.1, out: input });
    const expected: Record<string, ExpectedError> = JSON.parse(fs.readFileSync(book.expectedFile!, 'utf8'));
    const invalid = Object.keys(expected).length;
    expect(invalid).toBeGreaterThan(0);
    creates.clear();

    const staged = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 8, pollIntervalMs: 200, progress: 'none', mode: 'stage' });
    expect(staged.counts).toEqual({ STAGED: 30 - invalid, VALIDATION_FAILED: invalid });
    expect(staged.requests).toMatchObject({ stage: 30, create: 0, process: 0 });
    const afterStage = readReport(`${input}.report`).accounts;
    for (const a of afterStage) {
      const e = expected[a.external_account_number];
      expect(a.final_status).toBe(e ? 'VALIDATION_FAILED' : 'STAGED');
      if (e) expect(a.errors).toEqual([{ code: e.code, attr: e.attr, detail: expect.any(String) }]);
    }
    const rows = await s.t.db('import_processes').whereLike('external_account_number', `MIG3-${RUN}-%`).select('status');
    expect(rows.map((r: { status: string }) => r.status)).toEqual(Array(30 - invalid).fill('STAGED'));

    // A second --stage run has nothing left to send.
    const again = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 8, pollIntervalMs: 200, progress: 'none', mode: 'stage' });
    expect(again.requests.stage).toBe(0);
    expect(again.skipped).toBe(30);

    const processed = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 8, pollIntervalMs: 200, progress: 'none', mode: 'process' });
    expect(processed.counts).toEqual({ PROCESSED: 30 - invalid, VALIDATION_FAILED: invalid });
    expect(processed.requests).toMatchObject({ process: 30 - invalid, create: 0, stage: 0 });
    expect(processed.skipped).toBe(invalid);
    expect([...creates.keys()].filter((ext) => ext.startsWith(`MIG3-${RUN}-`))).toEqual([]);
    expectComplete(readReport(`${input}.report`).accounts, 30, expected);
  });

  it('stops cleanly when interrupted and resumes without re-creating what was already PROCESSED', async () => {
    const input = path.join(dir, 'resume.ndjson');
    const book = await writeBook({ seed: 'migrate-2', count: 40, prefix: `MIG2-${RUN}-`, today: londonToday(new Date()), invalidShare: 0.1, out: input });
    const expected: Record<string, ExpectedError> = JSON.parse(fs.readFileSync(book.expectedFile!, 'utf8'));
    creates.clear();

    const controller = new AbortController();
    let processedSeen = 0;
    onStatus = (status) => {
      if (status === 'PROCESSED' && ++processedSeen === 8) setTimeout(() => controller.abort(), 50);
    };
    const first = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 4, pollIntervalMs: 200, progress: 'none', signal: controller.signal, timeoutMs: 90_000 });
    onStatus = () => undefined;
    expect(first.interrupted).toBe(true);

    const state: StateDocument = JSON.parse(fs.readFileSync(`${input}.migrate-state.json`, 'utf8'));
    const doneBefore = Object.entries(state.accounts).filter(([, r]) => r.status === 'PROCESSED').map(([ext]) => ext);
    const failedBefore = Object.entries(state.accounts).filter(([, r]) => r.status === 'VALIDATION_FAILED').map(([ext]) => ext);
    expect(doneBefore.length).toBeGreaterThanOrEqual(1);
    expect(doneBefore.length + failedBefore.length).toBeLessThan(40);

    creates.clear();
    const second = await runMigration({ input, apiKey: s.apiKey, apiUrl, concurrency: 4, pollIntervalMs: 200, progress: 'none', timeoutMs: 90_000 });

    expect(second.interrupted).toBe(false);
    expect(doneBefore.filter((ext) => creates.has(ext))).toEqual([]);
    expect(failedBefore.filter((ext) => creates.has(ext))).toEqual([]);
    expect(second.skipped).toBe(doneBefore.length + failedBefore.length);
    expect(second.counts).toEqual({ PROCESSED: 36, VALIDATION_FAILED: 4 });
    expectComplete(readReport(`${input}.report`).accounts, 40, expected);
  });
});
