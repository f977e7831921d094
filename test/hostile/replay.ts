/**
 * Issue 47's findings replayed against a running stack (`npm run up`, or any deployment reached over
 * loopback): each finding's request as the probe sent it, its documented answer checked, and the
 * API and worker processes' pids read from the supervisor's pid files before and after: none may
 * have died. Another tenant polls all along; its slowest answer is printed. `npm run
 * replay:findings -- --help` lists the options; docs/security.md, "Findings replayed", has a run.
 *
 * It writes to the stack it is pointed at: a few accounts under the prefix `REPLAY-<random>-`
 * (one imported at every free-form bound, refused ones), refresh tokens, and with --inbox-secret
 * it empties the local mail sink's inbox (the finding is what that click did).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import crypto from 'node:crypto';
import { Command } from 'commander';
import { accountDigest } from '../../account/canonical';
import { diffAccounts } from '../../cli/reconcile/compare';
import { londonToday } from '../../account/dates';
import { FREE_FORM_BOUNDS } from '../../account/freeForm';
import { createRng, generateAccount } from '../../cli/generate';

interface Options {
  api: string;
  key: string;
  supplier: string;
  runDir: string;
  ops: string | null;
  opsToken: string | null;
  temporalUi: string | null;
  inbox: string | null;
  inboxSecret: string | null;
  importTimeout: number;
}

interface Answer {
  status: number;
  code: string | null;
  json: boolean;
  text: string;
  ms: number;
}

interface Finding {
  id: string;
  /** What the probe found (issue 47, "Why"). */
  found: string;
  /** The documented answer. */
  expected: string;
  /** Returns what was answered; throws (or returns a problem) when it is not the documented answer. */
  replay: () => Promise<{ answered: string; problem?: string }>;
}

const OBTAIN = 'mutation($input: ObtainJSONWebTokenInput!) { obtainKrakenToken(input: $input) { token refreshToken } }';

async function main(): Promise<number> {
  const program = new Command('replay-findings')
    .description("Replays issue 47's findings against a running stack and checks each gets its documented 4xx while the API and worker pids stay the same.")
    .option('--api <url>', 'the API', `http://127.0.0.1:${process.env.PORT ?? '8000'}`)
    .option('--key <key|@file>', 'an API key of an organisation granted --supplier (default: the demo key npm run up keeps)', '@data/demo-api-key')
    .option('--supplier <code>', 'the import supplier the key may import for', 'DEMO_ENERGY')
    .option('--run-dir <dir>', "the supervisor's pid files (<name>.pid of api-* and worker-*)", 'data/run')
    .option('--ops <url>', 'the operations page (off: skip its finding)', 'http://127.0.0.1:8001')
    .option('--ops-token <token>', 'OPS_TOKEN, when the page has one')
    .option('--temporal-ui <url>', 'the Temporal Web UI npm run up serves (off: skip its finding)', 'http://127.0.0.1:8233')
    .option('--inbox <url>', "the local mail sink's inbox (with --inbox-secret)")
    .option('--inbox-secret <file>', "the inbox's password file (data/maildev/inbox.secret): replays the inbox's delete-all, which EMPTIES the local inbox")
    .option('--import-timeout <seconds>', 'how long the account at every bound may take to import', (v) => Number(v), 180)
    .addHelpText('after', '\nExit code: 0 every finding got its documented answer and no pid changed; 1 otherwise.\nRun the stack with GRAPHQL_INTROSPECTION=false (the default outside APP_ENV=development) for the introspection finding.\n');
  program.parse();
  const raw = program.opts<Omit<Options, 'ops' | 'temporalUi' | 'inbox' | 'inboxSecret' | 'opsToken'> & { ops: string; temporalUi: string; inbox?: string; inboxSecret?: string; opsToken?: string }>();
  const o: Options = {
    ...raw,
    key: raw.key.startsWith('@') ? fs.readFileSync(raw.key.slice(1), 'utf8').trim() : raw.key,
    ops: raw.ops === 'off' ? null : raw.ops,
    temporalUi: raw.temporalUi === 'off' ? null : raw.temporalUi,
    inbox: raw.inbox ?? null,
    inboxSecret: raw.inboxSecret ?? null,
    opsToken: raw.opsToken ?? null,
  };
  const prefix = `REPLAY-${crypto.randomBytes(3).toString('hex')}-`;

  const call = async (p: string, init: { method?: string; token?: string; body?: string | ReadableStream; headers?: Record<string, string>; base?: string } = {}): Promise<Answer> => {
    const t0 = Date.now();
    const headers: Record<string, string> = { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.token ? { Authorization: `Token ${init.token}` } : {}), ...init.headers };
    const r = await fetch(`${init.base ?? o.api}${p}`, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body, ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
    const text = await r.text();
    let code: string | null = null;
    const json = (r.headers.get('content-type') ?? '').includes('json');
    try {
      const parsed = JSON.parse(text) as { code?: unknown; errors?: { extensions?: { errorCode?: unknown } }[] };
      code = typeof parsed.code === 'string' ? parsed.code : null;
    } catch {
      /* not JSON: `json` says so */
    }
    return { status: r.status, code, json, text, ms: Date.now() - t0 };
  };
  const show = (a: Answer) => `${a.status}${a.code ? ` ${a.code}` : ''}${a.json ? '' : ' (not JSON)'}`;
  const want = (a: Answer, status: number | number[], code?: string | string[]): string | undefined => {
    const statuses = Array.isArray(status) ? status : [status];
    const codes = code === undefined ? null : Array.isArray(code) ? code : [code];
    if (!statuses.includes(a.status) || !a.json || (codes && !codes.includes(a.code ?? ''))) return `expected ${statuses.join(' or ')}${codes ? ` ${codes.join(' or ')}` : ''} in JSON, got ${show(a)}: ${a.text.slice(0, 160)}`;
    return undefined;
  };
  const obtain = async (input: Record<string, string>) => {
    const a = await call('/v1/graphql/', { body: JSON.stringify({ query: OBTAIN, variables: { input } }) });
    const data = (JSON.parse(a.text) as { data?: { obtainKrakenToken?: { token: string; refreshToken: string } } }).data?.obtainKrakenToken;
    return { answer: a, token: data?.token ?? null, refreshToken: data?.refreshToken ?? null };
  };

  const pids = () => {
    const out: Record<string, string> = {};
    if (!fs.existsSync(o.runDir)) return out;
    for (const f of fs.readdirSync(o.runDir)) if (/^(api|worker)-.*\.pid$/.test(f)) out[f.replace(/\.pid$/, '')] = fs.readFileSync(path.join(o.runDir, f), 'utf8').trim();
    return out;
  };
  const before = pids();
  if (Object.keys(before).length === 0) process.stderr.write(`[replay] no api-*/worker-* pid files in ${o.runDir}: pids not checked\n`);

  // Tokens first: the token buckets (30 per address) are what the aliased requests below drain.
  const mine = await obtain({ APIKey: o.key });
  const other = await obtain({ APIKey: o.key });
  const family = await obtain({ APIKey: o.key });
  if (!mine.token || !other.token || !family.token) throw new Error(`no token for the key: ${show(mine.answer)} ${mine.answer.text.slice(0, 200)}`);
  const token = mine.token;

  // Another tenant's requests all along: a status read every 200 ms.
  const otherAnswers: { status: number; ms: number }[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const t0 = Date.now();
      try {
        const r = await fetch(`${o.api}/v2/data-import/accounts/${o.supplier}/${prefix}NOBODY/`, { headers: { Authorization: `Token ${other.token}` }, signal: AbortSignal.timeout(30_000) });
        await r.arrayBuffer();
        otherAnswers.push({ status: r.status, ms: Date.now() - t0 });
      } catch {
        otherAnswers.push({ status: 0, ms: Date.now() - t0 });
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  })();

  /** As many aliased token fields as fit in the token operation's 64 KiB body, as the probe sent them. */
  const aliased = (key: string) => {
    const fields: string[] = [];
    // The body's length kept as fields are added: each adds its JSON-escaped text and a space.
    let size = JSON.stringify({ query: 'mutation{}' }).length;
    for (let i = 0; ; i++) {
      const next = `t${i}:obtainKrakenToken(input:{APIKey:"${key}"}){token}`;
      const added = JSON.stringify(next).length - 2 + (fields.length > 0 ? 1 : 0);
      if (size + added > 65_000) return { n: fields.length, body: JSON.stringify({ query: `mutation{${fields.join(' ')}}` }) };
      fields.push(next);
      size += added;
    }
  };
  const empties = (n: number) => `{"import_supplier":"${o.supplier}","x":[${'{},'.repeat(n - 1)}{}]}`;
  const account = (ext: string, profile: 'typical' | 'full' = 'typical') =>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    generateAccount(createRng(ext), { externalAccountNumber: ext, today: londonToday(new Date()), profile }) as any;
  /** The probe's 4.2 MB account: 1.4 million values in one free-form field. */
  const manyValues = () => {
    const a = account(`${prefix}MANY`, 'full');
    a.business.details[0].value = 'HOLE';
    return JSON.stringify(a).replace('"HOLE"', `[${'0,'.repeat(1_399_999)}0]`);
  };
  const deepFreeForm = () => JSON.stringify({ ...account(`${prefix}DEEP`), metadata: [{ key: 'deep', value: 'HOLE' }] }).replace('"HOLE"', `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
  const V2 = '/v2/data-import/accounts/';
  const STAGE = '/v1/data-import/account-import-process/create-or-update/';

  const findings: Finding[] = [
    {
      id: 'graphql-aliases-valid-key',
      found: 'one request with ~1,300 aliased obtainKrakenToken fields and a valid key returned 1,300 tokens',
      expected: '400 graphql_document_too_costly, no token',
      replay: async () => {
        const { n, body } = aliased(o.key);
        const a = await call('/v1/graphql/', { body });
        const problem = want(a, 400, 'graphql_document_too_costly') ?? (a.text.includes('"token"') ? 'a token was returned' : undefined);
        return { answered: `${n} aliases: ${show(a)}`, problem };
      },
    },
    {
      id: 'graphql-aliases-bogus-key-x30',
      found: '30 such requests at once with a bogus key ran the API out of heap',
      expected: 'each 400 graphql_document_too_costly or 429 throttled; the API up',
      replay: async () => {
        const { n, body } = aliased('x');
        const all = await Promise.all(Array.from({ length: 30 }, () => call('/v1/graphql/', { body })));
        const bad = all.map((a) => want(a, [400, 429], ['graphql_document_too_costly', 'throttled'])).filter(Boolean);
        return { answered: `${n} aliases each: ${summarise(all.map(show))}`, problem: bad[0] };
      },
    },
    {
      id: 'two-million-empties-x4',
      found: "a 6 MB body of two million empty objects exhausted the API's heap inside JSON.parse (four at once)",
      expected: 'each 413 payload_too_large',
      replay: async () => {
        const body = empties(2_000_000);
        const all = await Promise.all([V2, V2, `${V2}validate/`, STAGE].map((p) => call(p, { token, body })));
        return { answered: summarise(all.map(show)), problem: all.map((a) => want(a, 413, 'payload_too_large')).find(Boolean) };
      },
    },
    {
      id: 'many-values-account-x4',
      found: "a valid 4.2 MB account with 1.4 million values in one free-form field imported, then killed every worker's digest filler; staged four times, v1 process ran the API out of heap",
      expected: 'each 413 payload_too_large (past the body values bound) on create, validate and stage',
      replay: async () => {
        const body = manyValues();
        const all = await Promise.all([V2, `${V2}validate/`, STAGE, STAGE].map((p) => call(p, { token, body })));
        return { answered: `${(body.length / 1e6).toFixed(1)} MB: ${summarise(all.map(show))}`, problem: all.map((a) => want(a, 413, 'payload_too_large')).find(Boolean) };
      },
    },
    {
      id: 'deep-free-form',
      found: 'a free-form value nested 5,000 deep validated (200) on v2 validate, then create and stage answered 500, and v1 validate-account a plain-text 500',
      expected: '413 payload_too_large in JSON on all four',
      replay: async () => {
        const body = deepFreeForm();
        const all = await Promise.all([`${V2}validate/`, V2, '/v1/data-import/validate-account/', STAGE].map((p) => call(p, { token, body })));
        return { answered: summarise(all.map(show)), problem: all.map((a) => want(a, 413, 'payload_too_large')).find(Boolean) };
      },
    },
    {
      id: 'nul-validate-create-agree',
      found: 'v2 validate answered 200 for an account create refused (a NUL in a name)',
      expected: 'validate 400 naming invalid_character; create 400 import_process_failed_validation',
      replay: async () => {
        const a = account(`${prefix}NUL`);
        a.customers[0].given_name = 'A\u0000B';
        const body = JSON.stringify(a);
        const [v, c] = await Promise.all([call(`${V2}validate/`, { token, body }), call(V2, { token, body })]);
        const codes = (x: Answer) => [...x.text.matchAll(/"code":"([a-z_]+)"/g)].map((m) => m[1]).join(', ');
        // v2 create names no errors (the spec: validate lists them): it must refuse, validate must say why.
        const problem = want(c, 400, 'import_process_failed_validation') ?? (v.status !== 400 || !codes(v).includes('invalid_character') ? `validate answered ${show(v)} ${codes(v)}` : undefined);
        return { answered: `validate ${v.status} ${codes(v)}; create ${c.status} ${codes(c)}`, problem };
      },
    },
    ...(o.ops
      ? [
          {
            id: 'ops-tranche-16mib',
            found: "the operations page's POST /api/tranche parsed up to 16 MiB in the API process with no budget",
            expected: '413 payload_too_large',
            replay: async () => {
              const body = `{"import_supplier":"${o.supplier}","external_account_numbers":[${'"A",'.repeat(4 * 1024 * 1024 - 1)}"A"]}`;
              const a = await call('/api/tranche', { base: o.ops!, body, headers: o.opsToken ? { Authorization: `Bearer ${o.opsToken}` } : {} });
              return { answered: `${(body.length / 1048576).toFixed(1)} MiB: ${show(a)}`, problem: want(a, 413, 'payload_too_large') };
            },
          },
        ]
      : []),
    {
      id: 'stalled-upload',
      found: "one tenant's stalled 10 MiB upload delayed another tenant's bodies over 6 MiB, and any chunked body, by up to 30 s",
      expected: "the other tenant's 7 MiB body and 90-byte chunked body each answered within 5 s",
      replay: async () => {
        const u = new URL(o.api);
        const stalled = net.connect(Number(u.port || 80), u.hostname);
        await new Promise<void>((res, rej) => stalled.once('connect', res).once('error', rej));
        stalled.write(`POST ${V2} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Token ${token}\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n{"x":"${'a'.repeat(1024)}`);
        stalled.on('error', () => undefined);
        try {
          await new Promise((res) => setTimeout(res, 500));
          const big = await call(`${V2}validate/`, { token: other.token!, body: `{"x":"${'a'.repeat(7 * 1024 * 1024)}"}` });
          const text = new TextEncoder().encode(`{"import_supplier":"${o.supplier}","external_account_number":"${prefix}CHUNKED"}`.padEnd(90, ' '));
          const chunked = await call(`${V2}validate/`, { token: other.token!, body: new ReadableStream({ start: (c) => (c.enqueue(text), c.close()) }) });
          const slow = [big, chunked].filter((a) => a.ms > 5_000);
          const answered = `7 MiB: ${show(big)} in ${big.ms} ms; chunked 90 bytes: ${show(chunked)} in ${chunked.ms} ms`;
          const notAnswered = [big, chunked].find((a) => a.status < 400 || a.status >= 500 || !a.json);
          return { answered, problem: slow.length > 0 ? `answered after ${slow.map((a) => a.ms).join(', ')} ms` : notAnswered ? `expected a 4xx in JSON, got ${show(notAnswered)}` : undefined };
        } finally {
          stalled.destroy();
        }
      },
    },
    {
      id: 'metrics-x-real-ip',
      found: '/metrics answered a request that carried only X-Real-IP',
      expected: '401 authentication_failed',
      replay: async () => {
        const a = await call('/metrics', { headers: { 'X-Real-IP': '203.0.113.7' } });
        return { answered: show(a), problem: want(a, 401, 'authentication_failed') };
      },
    },
    {
      id: 'revoked-family-access-token',
      found: "access tokens of a revoked refresh family kept working until they expired",
      expected: 'the family revoked by a refresh token replay; its access token then 401 authentication_failed',
      replay: async () => {
        const next = await obtain({ refreshToken: family.refreshToken! });
        const replayed = await obtain({ refreshToken: family.refreshToken! });
        if (!next.token || replayed.token) return { answered: `refresh ${show(next.answer)}, replay ${show(replayed.answer)}`, problem: 'the refresh or its replay did not answer as documented' };
        // The revocation is seen within AUTH_GRANT_CACHE_MS (1 s by default).
        await new Promise((res) => setTimeout(res, 1_500));
        const [old, newer] = await Promise.all([family.token!, next.token].map((t) => call(`/v2/data-import/accounts/${o.supplier}/${prefix}NOBODY/`, { token: t })));
        return { answered: `first access token ${show(old)}, refreshed one ${show(newer)}`, problem: want(old, 401, 'authentication_failed') ?? want(newer, 401, 'authentication_failed') };
      },
    },
    {
      id: 'graphql-introspection',
      found: 'GraphQL introspection and field suggestions were on',
      expected: 'introspection refused, no "Did you mean"',
      replay: async () => {
        const intro = await call('/v1/graphql/', { body: JSON.stringify({ query: '{ __schema { types { name } } }' }) });
        const typo = await call('/v1/graphql/', { body: JSON.stringify({ query: 'mutation { obtainKrakenTokn(input: {APIKey: "x"}) { token } }' }) });
        const refused = !intro.text.includes('"data"') && /introspection/i.test(intro.text);
        const suggests = /Did you mean/.test(typo.text);
        return { answered: `introspection ${refused ? 'refused' : 'ANSWERED'}, suggestion ${suggests ? 'GIVEN' : 'none'}`, problem: !refused || suggests ? 'introspection or suggestions are on (GRAPHQL_INTROSPECTION; APP_ENV=development turns them on)' : undefined };
      },
    },
    {
      id: 'account-at-every-bound',
      found: '(done-when) an account at every bound imports, reads back equal and gets its digest, the workers up',
      expected: '201, PROCESSED, read-back equal (bank details masked), digest equal',
      replay: async () => {
        const ext = `${prefix}AT-BOUNDS`;
        const a = account(ext, 'full');
        const { maxValues, maxDepth, maxChars } = FREE_FORM_BOUNDS;
        const nested = (n: number): unknown => (n <= 1 ? [] : [nested(n - 1)]);
        const atValues = { n: Array.from({ length: maxValues - 2 }, (_, i) => i) };
        a.metadata = [...(a.metadata ?? []), { key: 'at-values', value: atValues }, { key: 'at-depth', value: { d: nested(maxDepth - 1) } }, { key: 'at-chars', value: { s: `${'é'.repeat(maxChars - 3)}😀` } }];
        a.business.details[0].value = atValues;
        const created = await call(V2, { token, body: JSON.stringify(a) });
        if (created.status !== 201) return { answered: show(created), problem: `create answered ${show(created)}: ${created.text.slice(0, 200)}` };
        const deadline = Date.now() + o.importTimeout * 1000;
        let status = '';
        while (Date.now() < deadline && status !== 'PROCESSED' && status !== 'FAILED') {
          status = (JSON.parse((await call(`${V2}${o.supplier}/${ext}/`, { token })).text) as { status?: string }).status ?? '';
          if (status !== 'PROCESSED') await new Promise((res) => setTimeout(res, 1_000));
        }
        if (status !== 'PROCESSED') return { answered: `status ${status || 'none'}`, problem: `not PROCESSED within ${o.importTimeout} s` };
        const back = JSON.parse((await call(`${V2}${o.supplier}/${ext}/account/`, { token })).text) as unknown;
        const digest = (JSON.parse((await call(`${V2}digests/`, { token, body: JSON.stringify({ import_supplier: o.supplier, external_account_numbers: [ext] }) })).text) as { results: { digest: string }[] }).results[0]?.digest;
        // As reconcile compares a masked read-back: both canonical, bank details masked on both sides.
        const differs = diffAccounts(a, back, 1).paths[0]?.path ?? null;
        const digestEqual = digest === accountDigest(a);
        return { answered: `PROCESSED, read-back ${differs === null ? 'equal' : `DIFFERENT at ${differs}`}, digest ${digestEqual ? 'equal' : 'DIFFERENT'}`, problem: differs === null && digestEqual ? undefined : 'read-back or digest differs' };
      },
    },
    ...(o.temporalUi
      ? [
          {
            id: 'temporal-ui-host',
            found: 'the Temporal UI started by npm run up answered any Host',
            expected: '403 for a Host that is not loopback',
            replay: async () => {
              const u = new URL(o.temporalUi!);
              const status = await new Promise<number>((resolve, reject) => {
                const s = net.connect(Number(u.port || 80), u.hostname);
                let data = '';
                s.on('data', (d) => (data += String(d)));
                s.on('error', reject);
                s.on('close', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0)));
                s.write('GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n');
              });
              return { answered: String(status), problem: status === 403 ? undefined : `expected 403, got ${status}` };
            },
          },
        ]
      : []),
    ...(o.inbox && o.inboxSecret
      ? [
          {
            id: 'inbox-delete-all',
            found: "the local inbox's own delete-all removed inbox.secret: nobody could read the inbox until a restart",
            expected: 'after DELETE /email/all the password file is there and the inbox still answers 200 with it',
            replay: async () => {
              const auth = { Authorization: `Basic ${Buffer.from(`inbox:${fs.readFileSync(o.inboxSecret!, 'utf8').trim()}`).toString('base64')}` };
              const del = await fetch(`${o.inbox}/email/all`, { method: 'DELETE', headers: auth });
              const still = fs.existsSync(o.inboxSecret!);
              const after = still ? await fetch(`${o.inbox}/email`, { headers: { Authorization: `Basic ${Buffer.from(`inbox:${fs.readFileSync(o.inboxSecret!, 'utf8').trim()}`).toString('base64')}` } }) : null;
              return { answered: `delete ${del.status}; password file ${still ? 'kept' : 'GONE'}; inbox ${after?.status ?? '-'}`, problem: still && after?.status === 200 ? undefined : 'the inbox cannot be read after its delete-all' };
            },
          },
        ]
      : []),
  ];

  const rows: string[] = [];
  let failed = 0;
  for (const f of findings) {
    let result: { answered: string; problem?: string };
    try {
      result = await f.replay();
    } catch (err) {
      result = { answered: 'error', problem: err instanceof Error ? err.message : String(err) };
    }
    if (result.problem) failed++;
    process.stderr.write(`[replay] ${f.id}: ${result.problem ? `FAILED: ${result.problem}` : 'ok'} (${result.answered})\n`);
    rows.push(`| ${f.id} | ${f.found} | ${f.expected} | ${result.answered} | ${result.problem ? 'FAILED' : 'ok'} |`);
  }
  polling = false;
  await poller;

  const after = pids();
  const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
  const otherFailed = otherAnswers.filter((a) => a.status !== 404);
  const slowest = Math.max(0, ...otherAnswers.map((a) => a.ms));
  const lines = [
    '',
    '| finding | what the probe found | documented answer | answered | |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `pids (${o.runDir}): ${Object.keys(before).length === 0 ? 'no pid files: not checked' : changed.length === 0 ? `unchanged (${Object.entries(after).map(([k, v]) => `${k} ${v}`).join(', ')})` : `CHANGED: ${changed.map((k) => `${k} ${before[k] ?? '-'} -> ${after[k] ?? '-'}`).join(', ')}`}`,
    `another tenant: ${otherAnswers.length} status reads during the replay, ${otherFailed.length} not answered 404, slowest ${slowest} ms`,
  ];
  const othersHeld = otherFailed.length === 0 && slowest <= 5_000;
  lines.push(`replay: ${findings.length - failed} of ${findings.length} findings answered as documented; pids ${changed.length === 0 ? 'unchanged' : 'CHANGED'}; another tenant ${othersHeld ? 'answered throughout' : 'NOT answered throughout'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return failed === 0 && changed.length === 0 && othersHeld ? 0 : 1;
}

/** `413 payload_too_large ×4` for repeated answers. */
function summarise(answers: string[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].map(([a, n]) => (n > 1 ? `${a} ×${n}` : a)).join(', ');
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[replay] could not run: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
