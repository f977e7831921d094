/**
 * The tranche trial of issue 40, as a migration lead runs it: three tranches of one generated book
 * (TRANCHES, default 1000,5000,1000 mixed accounts) migrated one after another into one supplier
 * with `bin/data-import migrate`, each reconciled as a tranche right after (`reconcile`, the
 * default --extras count: exit 0 expected), the progress of the second shown by `imports summary
 * --book`, then the three books together reconciled as the whole supplier (`--extras list`: exit 0
 * expected). Every command runs as the lead runs it (the build, its own process, `--progress
 * plain`), against a stack of its own (bench/lib/stack.ts: the API, one worker, Temporal);
 * everything they print goes to stdout, each command's exit code and seconds after it.
 *
 *   npm run build && npx tsx bench/tranches.ts > tranches.log
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { startBenchStack } from './lib/stack';

const ROOT = path.join(__dirname, '..');
const SIZES = (process.env.TRANCHES ?? '1000,5000,1000').split(',').map(Number);
const PROFILE = process.env.TRANCHE_PROFILE ?? 'mixed';

async function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  process.stdout.write(`\n$ data-import ${args.join(' ')}\n`);
  const started = performance.now();
  const child = spawn(path.join(ROOT, 'bin', 'data-import'), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout.on('data', (d: Buffer) => process.stdout.write(d));
  child.stderr.on('data', (d: Buffer) => process.stdout.write(d));
  const [code] = (await once(child, 'exit')) as [number | null];
  process.stdout.write(`[exit ${code} after ${((performance.now() - started) / 1000).toFixed(1)} s]\n`);
  return code;
}

async function main() {
  const stack = await startBenchStack({ temporal: 'as-run' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-tranches-'));
  const api = ['--api-url', stack.apiUrl, '--api-key', stack.apiKey];
  const failures: string[] = [];
  try {
    const books: string[] = [];
    let start = 1;
    for (const [i, size] of SIZES.entries()) {
      const book = path.join(dir, `tranche-${i + 1}.ndjson`);
      await run(['generate', '--count', String(size), '--start', String(start), '--seed', 'tranches', '--profile', PROFILE, '--out', book]);
      books.push(book);
      start += size;
    }
    for (const [i, book] of books.entries()) {
      if ((await run(['migrate', '--input', book, ...api, '--concurrency', '16', '--progress', 'plain'])) !== 0) failures.push(`migrate tranche ${i + 1}`);
      if (i === 1) await run(['imports', 'summary', '--book', book], { ...process.env, DATABASE_URL: stack.databaseUrl });
      if ((await run(['reconcile', '--input', book, ...api, '--progress', 'plain'])) !== 0) failures.push(`reconcile tranche ${i + 1}`);
    }
    const whole = path.join(dir, 'whole.ndjson');
    fs.writeFileSync(whole, books.map((b) => fs.readFileSync(b, 'utf8')).join(''));
    if ((await run(['reconcile', '--input', whole, ...api, '--progress', 'plain', '--extras', 'list'])) !== 0) failures.push('reconcile of the whole supplier');
    process.stdout.write(`\n${failures.length === 0 ? 'every step exited 0' : `failed: ${failures.join(', ')}`}\n`);
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
