/**
 * bench/memory (issue "Half the CPU per imported account", memory): very large accounts, all at
 * once, against the API and the worker as the run command starts them (lib/nodeOptions.ts: capped
 * heaps; the API's body budget and the worker's payload budget: large bodies and payloads read
 * only when the budget has room).
 *
 *   npm run bench:memory     BENCH_MEMORY_COUNT (default 32) accounts of BENCH_MEMORY_MB (default 8)
 *                            MB of JSON each, created 32 at a time
 *
 * Prints whether every account was imported, whether the worker process survived (an
 * out-of-memory crash ends the run at once), its peak RSS and the API's. WORKER_PAYLOAD_BUDGET,
 * WORKER_NODE_OPTIONS, API_BODY_BUDGET and API_NODE_OPTIONS reach the services, so the same run
 * without a budget or a cap shows what they prevent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateBook } from '../cli/generate';
import { runMigration } from '../cli/migrate';
import type { Account } from '../account/schema';
import { startBenchStack, writeResult } from './lib/stack';

const COUNT = Number(process.env.BENCH_MEMORY_COUNT ?? 32);
const MEGABYTES = Number(process.env.BENCH_MEMORY_MB ?? 8);
const CONCURRENCY = 32;

/** A generated large account with its first ledger's historical transactions repeated up to `bytes` of JSON. */
function inflate(account: Account, bytes: number): Account {
  const ledger = account.ledgers?.[0];
  const history = ledger?.historical_statement_transactions;
  if (!ledger || !history || history.length === 0) throw new Error('a large account has a ledger with transactions');
  const each = JSON.stringify(history[0]).length + 1;
  const copies = Math.min(100_000, Math.ceil((bytes - JSON.stringify(account).length) / each));
  // Each copy is a payment and its refund: the ledger's balance is unchanged.
  const pairs: typeof history = [];
  for (let i = 0; pairs.length < copies; i++) {
    const t = history[i % history.length]!;
    pairs.push({ ...t, transaction_id: `${t.transaction_id}-M${i}` });
    pairs.push({ ...t, transaction_id: `${t.transaction_id}-N${i}`, amount: t.amount.startsWith('-') ? t.amount.slice(1) : `-${t.amount}` });
  }
  ledger.historical_statement_transactions = [...history, ...pairs.slice(0, copies - (copies % 2))];
  return account;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-memory-'));
  const input = path.join(dir, 'book.ndjson');
  const out = fs.createWriteStream(input);
  let sizes = 0;
  for (const account of generateBook({ seed: 'bench-memory', count: COUNT, profile: 'large' })) {
    const line = JSON.stringify(inflate(account, MEGABYTES * 1024 * 1024));
    sizes += line.length;
    out.write(`${line}\n`);
  }
  await new Promise((r) => out.end(r));
  console.log(`${COUNT} accounts of ${(sizes / COUNT / 2 ** 20).toFixed(1)} MiB of JSON each`);

  const stack = await startBenchStack();
  const died = new Promise<string>((resolve) => stack.worker.once('exit', (code, signal) => resolve(`the worker exited (${signal ?? `code ${code}`})`)));
  const stop = new AbortController();
  void died.then(() => stop.abort());
  try {
    const started = Date.now();
    const summary = await runMigration({ input, apiUrl: stack.apiUrl, apiKey: stack.apiKey, concurrency: CONCURRENCY, pollIntervalMs: 500, progress: 'plain', signal: stop.signal });
    const workerAlive = stack.worker.exitCode === null && stack.worker.signalCode === null;
    const result = {
      accounts: COUNT,
      mibPerAccount: Number((sizes / COUNT / 2 ** 20).toFixed(1)),
      counts: summary.counts,
      workerSurvived: workerAlive,
      ...(workerAlive ? {} : { workerExit: await died }),
      peakRss: { workerMiB: workerAlive ? stack.peakRssMiB(stack.worker) : null, apiMiB: stack.peakRssMiB(stack.api) },
      workerNodeOptions: process.env.WORKER_NODE_OPTIONS ?? '(default)',
      payloadBudget: process.env.WORKER_PAYLOAD_BUDGET ?? '(default)',
      apiNodeOptions: process.env.API_NODE_OPTIONS ?? '(default)',
      apiBodyBudget: process.env.API_BODY_BUDGET ?? '(default)',
      durationMs: Date.now() - started,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`written ${writeResult('memory', result)}`);
    if (!workerAlive || (summary.counts.PROCESSED ?? 0) !== COUNT) process.exitCode = 1;
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
