import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runMigration, MigrationError } from '../../cli/migrate';

/**
 * The HTTP behaviour of `data-import migrate` against a tiny fake API (no database, no Temporal):
 * throttling, transient failures, tokens, unreadable input. The fake answers each request with
 * the next scripted answer for its route, then with its default.
 */

/** `drop`: the server takes the request and closes the connection without answering. */
type Answer = { status: number; body: unknown; headers?: Record<string, string> } | 'drop';
interface Seen {
  method: string;
  url: string;
  at: number;
  authorization?: string;
  body: string;
}

function account(external: string): Record<string, unknown> {
  return { import_supplier: 'DEMO_ENERGY', external_account_number: external, customers: [], supply_addresses: [] };
}

async function fakeApi(script: { create?: Answer[]; graphql?: (body: string) => Answer }) {
  const seen: Seen[] = [];
  const create = [...(script.create ?? [])];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, at: Date.now(), authorization: req.headers.authorization, body });
      let answer: Answer;
      if (req.url === '/v1/graphql/') answer = script.graphql!(body);
      else if (req.method === 'POST' && req.url === '/v2/data-import/accounts/') answer = create.shift() ?? { status: 201, body: { warnings: [] } };
      else if (req.method === 'GET') answer = { status: 200, body: { status: 'PROCESSED', kraken_identifier: 'A-0000ABCD', latest_error: null } };
      else answer = { status: 404, body: { code: 'not_found', detail: 'no' } };
      if (answer === 'drop') return void req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('data-import migrate over HTTP', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-http-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function book(name: string, lines: string[]): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  it('waits for Retry-After when the API answers 429, then creates the account', async () => {
    const api = await fakeApi({ create: [{ status: 429, body: { code: 'throttled', detail: 'slow down' }, headers: { 'retry-after': '1' } }] });
    try {
      const input = book('throttled.ndjson', [JSON.stringify(account('T-1'))]);
      const summary = await runMigration({ input, apiUrl: api.url, pollIntervalMs: 50, progress: 'none' });
      const creates = api.seen.filter((s) => s.method === 'POST' && s.url === '/v2/data-import/accounts/');
      expect(creates).toHaveLength(2);
      expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(950);
      expect(summary.requests.throttled).toBe(1);
      expect(summary.counts).toEqual({ PROCESSED: 1 });
    } finally {
      await api.close();
    }
  });

  it('retries 503 and 500 answers with backoff and records the account once it is created', async () => {
    const api = await fakeApi({
      create: [
        { status: 503, body: { code: 'request_timeout', detail: 'slow' } },
        { status: 500, body: { code: 'internal_error', detail: 'oops' } },
      ],
    });
    try {
      const input = book('transient.ndjson', [JSON.stringify(account('T-2'))]);
      const summary = await runMigration({ input, apiUrl: api.url, pollIntervalMs: 50, backoffBaseMs: 10, progress: 'none' });
      expect(summary.requests.retries).toBe(2);
      expect(summary.counts).toEqual({ PROCESSED: 1 });
    } finally {
      await api.close();
    }
  });

  it('marks the account FAILED with the last code once its retry bound is spent while the API answers its readiness probe', async () => {
    const busy = { status: 503, body: { code: 'service_unavailable', detail: 'down' } };
    const api = await fakeApi({ create: Array(10).fill(busy) });
    try {
      const input = book('exhausted.ndjson', [JSON.stringify(account('T-3'))]);
      const summary = await runMigration({ input, apiUrl: api.url, maxRetries: 2, backoffBaseMs: 5, progress: 'none' });
      expect(summary.counts).toEqual({ FAILED: 1 });
      const report = JSON.parse(fs.readFileSync(`${input}.report.json`, 'utf8'));
      expect(report.accounts[0].errors).toEqual([{ code: 'service_unavailable', attr: 'non_field_errors', detail: 'down' }]);
      // The third 503 in a row looked like an outage: the client asked /readyz before going on.
      expect(api.seen.filter((r) => r.url === '/readyz').length).toBeGreaterThanOrEqual(1);
      expect(summary.outages.count).toBe(1);
    } finally {
      await api.close();
    }
  });

  it.each([
    ['409 import_process_in_progress', { status: 409, body: { code: 'import_process_in_progress', detail: 'under way' } }],
    ['400 account_import_process_already_imported', { status: 400, body: { non_field_errors: { code: 'account_import_process_already_imported', detail: 'done' }, account_id: 'A-0000ABCD' } }],
  ])('follows a create whose answer was lost when the retry answers %s, and does not fail it', async (_name, second) => {
    const api = await fakeApi({ create: ['drop', second as Answer] });
    try {
      const input = book(`lost-${second.status}.ndjson`, [JSON.stringify(account('T-8'))]);
      const summary = await runMigration({ input, apiUrl: api.url, pollIntervalMs: 50, backoffBaseMs: 10, progress: 'none' });
      expect(api.seen.filter((r) => r.method === 'POST' && r.url === '/v2/data-import/accounts/')).toHaveLength(2);
      expect(summary.counts).toEqual({ PROCESSED: 1 });
      const report = JSON.parse(fs.readFileSync(`${input}.report.json`, 'utf8'));
      expect(report.accounts[0]).toMatchObject({ final_status: 'PROCESSED', kraken_identifier: 'A-0000ABCD', errors: [] });
    } finally {
      await api.close();
    }
  });

  it('obtains a token with the API key, sends it, and renews it with the refresh token after a 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const mutations: unknown[] = [];
    const api = await fakeApi({
      create: [{ status: 401, body: { code: 'authentication_failed', detail: 'expired' } }],
      graphql: (body) => {
        const input = JSON.parse(body).variables.input;
        mutations.push(input);
        const token = input.APIKey === 'key-1' ? 'T1' : input.refreshToken === 'R1' ? 'T2' : null;
        if (!token) return { status: 200, body: { data: { obtainKrakenToken: null }, errors: [{ message: 'bad', extensions: { errorCode: 'KT-CT-1139' } }] } };
        return { status: 200, body: { data: { obtainKrakenToken: { token, refreshToken: `R${token.slice(1)}`, refreshExpiresIn: now + 3600, payload: { iat: now, exp: now + 3600 } } } } };
      },
    });
    try {
      const input = book('auth.ndjson', [JSON.stringify(account('T-4'))]);
      const summary = await runMigration({ input, apiUrl: api.url, apiKey: 'key-1', pollIntervalMs: 50, progress: 'none' });
      expect(mutations).toEqual([{ APIKey: 'key-1' }, { refreshToken: 'R1' }]);
      const creates = api.seen.filter((s) => s.method === 'POST' && s.url === '/v2/data-import/accounts/');
      expect(creates.map((c) => c.authorization)).toEqual(['Token T1', 'Token T2']);
      expect(api.seen.filter((s) => s.method === 'GET').every((s) => s.authorization === 'Token T2')).toBe(true);
      expect(summary.counts).toEqual({ PROCESSED: 1 });
    } finally {
      await api.close();
    }
  });

  it('stops the run with not_authenticated when the API wants credentials and none were given', async () => {
    const api = await fakeApi({ create: [{ status: 401, body: { code: 'not_authenticated', detail: 'who are you' } }] });
    try {
      const input = book('noauth.ndjson', [JSON.stringify(account('T-5'))]);
      const run = runMigration({ input, apiUrl: api.url, progress: 'none' });
      await expect(run).rejects.toBeInstanceOf(MigrationError);
      await expect(run).rejects.toMatchObject({ code: 'not_authenticated' });
    } finally {
      await api.close();
    }
  });

  it('reports a malformed line as parse_error with its line number and goes on with the rest', async () => {
    const api = await fakeApi({});
    try {
      const input = book('broken.ndjson', [JSON.stringify(account('T-6')), '{"import_supplier": "DEMO_ENERGY", ', JSON.stringify(account('T-7'))]);
      const summary = await runMigration({ input, apiUrl: api.url, pollIntervalMs: 50, progress: 'none' });
      expect(summary.counts).toEqual({ PROCESSED: 2, PARSE_ERROR: 1 });
      // This fake has no bulk status operation (404 not_found): the client falls back to one GET per account.
      const bulk = api.seen.filter((s) => s.method === 'POST' && s.url === '/v2/data-import/accounts/statuses/');
      expect(bulk.length).toBeGreaterThanOrEqual(1);
      expect(bulk.length).toBeLessThanOrEqual(2);
      expect(api.seen.filter((s) => s.method === 'GET' && s.url.startsWith('/v2/data-import/accounts/DEMO_ENERGY/')).length).toBe(2);
      expect(api.seen.filter((s) => s.url === '/v2/data-import/accounts/statuses/').every((s) => s.at <= Math.min(...api.seen.filter((g) => g.method === 'GET').map((g) => g.at)))).toBe(true);
      const csv = fs.readFileSync(`${input}.report.csv`, 'utf8');
      expect(csv).toMatch(/^line 2,PARSE_ERROR,,parse_error,non_field_errors,/m);
    } finally {
      await api.close();
    }
  });
});
