import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountDigest } from '../../../account/canonical';
import { readInput, readText } from '../../../cli/shared/input';
import { accountTotals } from '../../../cli/reconcile';
import { digestedRecords, type DigestedRecord } from '../../../cli/reconcile/digest';
import { KeySet } from '../../../cli/reconcile/keySet';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.join(__dirname, '../../..');

function example(external: string, name = 'Ada Lovelace'): Json {
  const a = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples/account-dual-fuel.json'), 'utf8')) as Json;
  a.external_account_number = external;
  a.billing_name = name;
  return a;
}

async function all(input: string, threads: number): Promise<DigestedRecord[]> {
  const out: DigestedRecord[] = [];
  for await (const r of digestedRecords(input, threads)) out.push(r);
  return out;
}

/** The reconciliation's reading of the book (cli/reconcile/digest.ts, cli/shared/input.ts). */
describe('reconcile: the book read, parsed and hashed', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-recdigest-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives every record in book order, the same in worker threads as in this thread: digest, totals, the line as text, parse errors at their line', async () => {
    const lines: string[] = [];
    const accounts: Json[] = [];
    for (let i = 0; i < 300; i++) {
      // Names beyond ASCII: a multi-byte character falls on every chunk boundary sooner or later.
      const a = example(`EXT-${i}`, `Zoë ${'é'.repeat(i % 7)} 山田 ${i}`);
      accounts.push(a);
      lines.push(JSON.stringify(a));
      if (i === 10) lines.push('');
      if (i === 20) lines.push('{not json');
      if (i === 30) lines.push('[1, 2]');
    }
    const file = path.join(dir, 'book.ndjson');
    // CRLF line ends, and no line end after the last line.
    fs.writeFileSync(file, lines.join('\r\n'));
    const inThread = await all(file, 0);
    const threaded = await all(file, 2);
    expect(threaded).toEqual(inThread);
    const ok = inThread.filter((r) => r.kind === 'account');
    expect(ok).toHaveLength(300);
    for (const [i, r] of ok.entries()) {
      expect(r).toEqual({ kind: 'account', where: expect.stringMatching(/^line \d+$/), supplier: accounts[i]!.import_supplier, external: `EXT-${i}`, digest: accountDigest(accounts[i]), totals: accountTotals(accounts[i]!), source: { file, offset: expect.any(Number), bytes: expect.any(Number) } });
      // The line's text read again from where the record says it is.
      if (r.kind === 'account') expect(await readText(r.source)).toBe(JSON.stringify(accounts[i]));
    }
    expect(inThread.filter((r) => r.kind === 'parse_error').map((r) => r.where)).toEqual(['line 23', 'line 34']);
    // The line numbers are the file's, blank lines counted, as migrate names them.
    expect(ok[11]!.where).toBe('line 13');
    const migrate: string[] = [];
    for await (const r of readInput(file)) migrate.push(r.where);
    expect(migrate).toEqual(inThread.map((r) => r.where));
  });

  it('reads a line longer than the read chunk (1 MiB) whole, and a folder of files in name order', async () => {
    const big = example('BIG', 'x'.repeat(3 << 20));
    const file = path.join(dir, 'big.ndjson');
    fs.writeFileSync(file, `${JSON.stringify(example('SMALL'))}\n${JSON.stringify(big)}\n\n`);
    const r = await all(file, 1);
    expect(r.map((x) => (x.kind === 'account' ? x.external : x.where))).toEqual(['SMALL', 'BIG']);
    expect(r[1]).toMatchObject({ digest: accountDigest(big) });
    if (r[1]!.kind === 'account') expect(JSON.parse(await readText(r[1]!.source))).toEqual(big);
    const folder = path.join(dir, 'folder');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'b.json'), JSON.stringify(example('B')));
    fs.writeFileSync(path.join(folder, 'a.json'), JSON.stringify(example('A')));
    fs.writeFileSync(path.join(folder, 'c.json'), 'nope');
    const inFolder = await all(folder, 2);
    expect(inFolder.map((x) => [x.where, x.kind])).toEqual([
      ['a.json', 'account'],
      ['b.json', 'account'],
      ['c.json', 'parse_error'],
    ]);
    if (inFolder[1]!.kind === 'account') expect(JSON.parse(await readText(inFolder[1]!.source))).toEqual(example('B'));
  });

  it('runs reconcile in a node of its own with the heap capped, unless NODE_OPTIONS sets the heap (bin/data-import)', () => {
    const probe = path.join(dir, 'heap.js');
    fs.writeFileSync(probe, `process.stderr.write('heap ' + Math.round(require('v8').getHeapStatistics().heap_size_limit / 1048576) + '\\n');`);
    const run = (env: NodeJS.ProcessEnv) => {
      const r = spawnSync(path.join(ROOT, 'bin/data-import'), ['reconcile', '--help'], { env: { ...process.env, ...env }, encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('--threads <n>');
      return [...r.stderr.matchAll(/heap (\d+)/g)].map((m) => Number(m[1]));
    };
    // The flags of DATA_IMPORT_RECONCILE_NODE_OPTIONS reach the second node (the probe runs there only).
    const capped = run({ DATA_IMPORT_RECONCILE_NODE_OPTIONS: `--max-old-space-size=77 --require ${probe}`, NODE_OPTIONS: '' });
    expect(capped).toHaveLength(1);
    expect(capped[0]).toBeLessThan(200); // 77 MiB of old space and the young generation; uncapped: GiBs
    // A heap set by NODE_OPTIONS: no second node (the probe, in NODE_OPTIONS, runs once, in the first).
    const own = run({ NODE_OPTIONS: `--max-old-space-size=300 --require ${probe}` });
    expect(own).toHaveLength(1);
    expect(own[0]).toBeGreaterThan(300);
    expect(own[0]).toBeLessThan(500);
    // The default, as docs/configuration.md gives it.
    const flags = /const RECONCILE_NODE_OPTIONS = '([^']+)'/.exec(fs.readFileSync(path.join(ROOT, 'bin/data-import'), 'utf8'))![1];
    expect(fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8')).toContain(`| \`DATA_IMPORT_RECONCILE_NODE_OPTIONS\` | \`${flags}\` |`);
  });
});

describe('reconcile: Ctrl-C on a terminal (bin/data-import runs it in a node of its own)', () => {
  it('stops as one Ctrl-C asks, during an API outage: the summary printed, exit 130, at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-recsig-'));
    try {
      const book = path.join(dir, 'book.ndjson');
      fs.writeFileSync(book, `${JSON.stringify(example('SIG-1'))}\n`);
      // Port 9 (discard) refuses: an outage, which reconcile waits out for up to --outage-timeout.
      const child = spawn(path.join(ROOT, 'bin/data-import'), ['reconcile', '--input', book, '--api-url', 'http://127.0.0.1:9', '--api-key', 'x', '--progress', 'none'], { detached: true, env: { ...process.env, NODE_OPTIONS: '' } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // Ctrl-C once the CLI is in the outage it waits out. Its start-up (two nodes, the second
      // compiling the CLI with tsx) took over 30 s at a load average of ~15: a condition, waited for.
      const deadline = Date.now() + 90_000;
      while (!/API unavailable since/.test(err) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(err).toMatch(/API unavailable since/);
      // The terminal's Ctrl-C goes to the whole process group: both nodes get it.
      process.kill(-child.pid!, 'SIGINT');
      const code = await new Promise<number | null>((resolve) => {
        const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
        child.on('exit', (c) => {
          clearTimeout(kill);
          resolve(c);
        });
      });
      expect(code).toBe(130);
      expect(out).toContain('reconciliation interrupted');
      // One Ctrl-C, not two (a second quits at once, without the summary).
      expect(err.match(/stopping:/g)).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('reconcile: the set of the book’s keys (cli/reconcile/keySet.ts)', () => {
  it('answers as a Set of the keys would, through growth, for keys of any length and text', () => {
    const set = new KeySet(4);
    const ref = new Set<string>();
    const keys = Array.from({ length: 50_000 }, (_, i) => `SUPPLIER_${i % 7}\u0000${i % 3 === 0 ? 'é山' : ''}EXT-${i}${'x'.repeat(i % 50)}`);
    const wrong: string[] = [];
    for (const k of keys) {
      if (set.add(k) !== !ref.has(k)) wrong.push(`add ${k}`);
      ref.add(k);
    }
    for (const k of keys.slice(0, 1000)) if (set.add(k)) wrong.push(`added twice ${k}`);
    for (let i = 0; i < 50_000; i++) if (set.has(`SUPPLIER_${i % 7}\u0000EXT-other-${i}`)) wrong.push(`has other ${i}`);
    for (const k of keys) if (!set.has(k)) wrong.push(`lost ${k}`);
    expect(wrong).toEqual([]);
    expect(set.size).toBe(ref.size);
    expect(set.has('')).toBe(false);
    expect(set.add('')).toBe(true);
    expect(set.has('')).toBe(true);
  });
});
