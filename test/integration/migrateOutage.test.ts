import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { startStack, type Stack } from '../support/stack';
import { londonToday } from '../../account/dates';
import { writeBook } from '../../cli/generate';
import { runMigration } from '../../cli/migrate';

jest.setTimeout(240_000);

/**
 * `data-import migrate` against the real service while the API stops listening mid-migration:
 * the client waits out the outage (sends nothing, probes /readyz with backoff), resumes the
 * accounts that were in flight — one of them a create the server committed but whose answer was
 * lost — and fails none; an outage longer than --outage-timeout stops the run with every
 * unfinished account reported as api_unavailable, and the same command then finishes the book.
 */

const RUN = crypto.randomBytes(3).toString('hex');

interface ReportEntry {
  external_account_number: string;
  final_status: string;
  errors: { code: string }[];
}

describe('data-import migrate while the API goes away', () => {
  let s: Stack;
  let dir: string;
  let port: number;
  let server: http.Server | null = null;
  /** Create calls per external account number and the statuses they were answered with. */
  const creates = new Map<string, number[]>();
  /** Called in front of every create; may drop its answer or take the API down. */
  let onCreate: (ext: string, res: http.ServerResponse, req: http.IncomingMessage) => void = () => undefined;

  function listen(): Promise<void> {
    const callback = s.app.callback();
    const srv = http.createServer((req, res) => callback(req, res));
    server = srv;
    return new Promise((r) => srv.listen(port, '127.0.0.1', () => r()));
  }

  /** The API stops listening and drops every connection, requests in flight included. */
  function goDown(): void {
    const srv = server!;
    server = null;
    srv.close();
    srv.closeAllConnections();
  }

  beforeAll(async () => {
    s = await startStack();
    const recorder: Koa.Middleware = async (ctx, next) => {
      if (ctx.method !== 'POST' || ctx.path !== '/v2/data-import/accounts/') return next();
      await next();
      const ext = (ctx.request.body as { external_account_number?: string } | undefined)?.external_account_number ?? '?';
      creates.set(ext, [...(creates.get(ext) ?? []), ctx.status]);
      onCreate(ext, ctx.res, ctx.req);
    };
    s.app.middleware.unshift(recorder);
    const probe = http.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await listen();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-outage-'));
  });

  afterAll(async () => {
    if (server) goDown();
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('waits out an API that stops listening for a few seconds: every account PROCESSED, none FAILED, the lost create followed', async () => {
    const input = path.join(dir, 'book.ndjson');
    await writeBook({ seed: 'outage-1', count: 40, prefix: `OUT1-${RUN}-`, today: londonToday(new Date()), invalidShare: 0, out: input });
    creates.clear();
    let lost: string | null = null;
    let downAt = 0;
    let upAt = 0;
    onCreate = (ext, res, req) => {
      if (lost !== null || creates.size < 10) return;
      // The server has committed this create: its answer never reaches the client, and the API goes away.
      lost = ext;
      res.end = (() => {
        req.socket.destroy();
        return res;
      }) as typeof res.end;
      downAt = Date.now();
      setImmediate(goDown);
      setTimeout(() => {
        upAt = Date.now();
        void listen();
      }, 3000);
    };
    const lines: string[] = [];
    const summary = await runMigration({ input, apiKey: s.apiKey, apiUrl: `http://127.0.0.1:${port}`, concurrency: 4, pollIntervalMs: 200, progress: 'none', log: (l) => lines.push(l) });
    onCreate = () => undefined;

    expect(summary.counts).toEqual({ PROCESSED: 40 });
    expect(summary.apiUnavailable).toBe(false);
    expect(summary.outages.count).toBeGreaterThanOrEqual(1);
    expect(summary.outages.longestMs).toBeGreaterThanOrEqual(upAt - downAt - 500);
    expect(lines.some((l) => l.startsWith('API unavailable since'))).toBe(true);
    expect(lines.some((l) => l.startsWith('API answers again'))).toBe(true);

    // The create whose answer was lost was sent again and answered "already accepted".
    expect(lost).not.toBeNull();
    const again = creates.get(lost!)!;
    expect(again[0]).toBe(201);
    expect(again.length).toBeGreaterThanOrEqual(2);
    expect(again.slice(1).every((st) => st === 409 || st === 400)).toBe(true);

    const rows = await s.t.db('accounts').where('external_account_number', 'like', `OUT1-${RUN}-%`).select('external_account_number');
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.external_account_number)).size).toBe(40);
  });

  it('stops after an outage longer than --outage-timeout, reports the unfinished accounts as api_unavailable, and a re-run finishes the book', async () => {
    const input = path.join(dir, 'long.ndjson');
    await writeBook({ seed: 'outage-2', count: 16, prefix: `OUT2-${RUN}-`, today: londonToday(new Date()), invalidShare: 0, out: input });
    creates.clear();
    onCreate = () => {
      if (creates.size === 4 && server) setImmediate(goDown);
    };
    const first = await runMigration({ input, apiKey: s.apiKey, apiUrl: `http://127.0.0.1:${port}`, concurrency: 4, pollIntervalMs: 200, progress: 'none', outageTimeoutMs: 3000, log: () => undefined });
    onCreate = () => undefined;

    expect(first.apiUnavailable).toBe(true);
    expect(first.counts.FAILED).toBeUndefined();
    const report = JSON.parse(fs.readFileSync(`${input}.report.json`, 'utf8')) as { accounts: ReportEntry[] };
    const unfinished = report.accounts.filter((a) => a.final_status !== 'PROCESSED');
    expect(unfinished.length).toBeGreaterThanOrEqual(1);
    for (const a of unfinished) {
      expect(['NOT_SUBMITTED', 'SUBMITTED', 'PENDING', 'IN_PROGRESS']).toContain(a.final_status);
      expect(a.errors.map((e) => e.code)).toEqual(['api_unavailable']);
    }

    await listen();
    const second = await runMigration({ input, apiKey: s.apiKey, apiUrl: `http://127.0.0.1:${port}`, concurrency: 4, pollIntervalMs: 200, progress: 'none', log: () => undefined });
    expect(second.counts).toEqual({ PROCESSED: 16 });
    const rows = await s.t.db('accounts').where('external_account_number', 'like', `OUT2-${RUN}-%`);
    expect(rows).toHaveLength(16);
  });
});
