import os from 'node:os';
import v8 from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../lib/thread';
import type { Tranche } from '../lib/tranche';
import { rowLayout, type RawAccount } from './accountRows';
import { loadMapping } from './load';
import { AccountMapper, type AccountOutcome } from './mapAccount';
import { createMapValidator } from './validate';

/** What every thread is started with: enough to load the mapping and the validator itself. */
export interface MapThreadSetup {
  mapping: string;
  validate: boolean;
  referenceData?: string;
  tranche?: Tranche;
}

/** Messages to a thread: the extract's file names (once, before any account), then chunks of accounts. */
export type ToThread = { files: string[] } | { id: number; accounts: RawAccount[] };
export type FromThread = { id: number; results: AccountOutcome[] } | { id: number; error: string };

/** Worker threads by default: every core but the one the run's own thread and DuckDB keep busy, at least one. */
export function defaultMapThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/**
 * A mapping thread's young generation: 192 MiB, semi-spaces of 64 MiB (V8's default lets them grow
 * to 16 MiB). Building an account allocates an object per row and value, most dead by the next
 * account; in small semi-spaces the scavenger runs often and copies the chunk's live rows each time.
 * Measured on 10,000 typical accounts' rows in one thread: 9.3–11.6 s of CPU at the default,
 * 7.4–8.0 s at 192 MiB (bench/RESULTS.md, "A million accounts of the size").
 */
export const MAP_YOUNG_GENERATION_MB = 192;

/**
 * The same semi-spaces for the process's main thread, which streams the rows and maps chunks too:
 * set at run time they apply only as the heap grows (measured: 11.0 → 9.3–9.8 s where the flag at
 * start gave 8.0 s), so `data-import map` and bench:map call this before anything else.
 */
export function mapMainThreadHeap(): void {
  v8.setFlagsFromString(`--max-semi-space-size=${MAP_YOUNG_GENERATION_MB / 3}`);
}

/** Accounts sent to a thread at once (a typical account is ~25 KB of stored rows). */
const CHUNK_ACCOUNTS = 32;

/** The mapper of the run's own thread, for `threads: 0` (and the worker threads' own, mapping/mapThread.ts). */
export function accountMapper(setup: MapThreadSetup, files: string[]): AccountMapper {
  const mapping = loadMapping(setup.mapping);
  return new AccountMapper(mapping, rowLayout(mapping, files), setup.validate ? createMapValidator(setup.referenceData) : null, setup.tranche);
}

async function mapAll(mapper: AccountMapper, accounts: RawAccount[]): Promise<AccountOutcome[]> {
  const results: AccountOutcome[] = [];
  for (const raw of accounts) results.push(await mapper.map(raw));
  return results;
}

class MapThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: AccountOutcome[]) => void; reject: (e: unknown) => void }>();
  private next = 0;
  private failed: Error | null = null;

  constructor(setup: MapThreadSetup) {
    this.worker = startThread(__dirname, __filename, 'mapThread', { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: MAP_YOUNG_GENERATION_MB } });
    this.worker.on('message', (m: FromThread) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if ('error' in m) p?.reject(new Error(`a thread mapping accounts failed: ${m.error}`));
      else p?.resolve(m.results);
    });
    const fail = (err: Error) => {
      this.failed ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(new Error(`a thread mapping accounts failed: ${err.message}`)));
    this.worker.on('exit', (code) => fail(new Error(`a thread mapping accounts ended (exit ${code})`)));
  }

  get busy(): number {
    return this.pending.size;
  }

  files(files: string[]): void {
    this.worker.postMessage({ files } satisfies ToThread);
  }

  map(accounts: RawAccount[]): Promise<AccountOutcome[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, accounts } satisfies ToThread);
    });
  }

  async close(): Promise<void> {
    this.failed ??= new Error('closed');
    await this.worker.terminate();
  }
}

/**
 * Threads that build and validate accounts (mapping/mapAccount.ts) while the run's own thread
 * streams their rows out of DuckDB and writes the book. Started before the extract is loaded, so
 * each thread's start (loading the code, compiling the validator's schema) overlaps the loading.
 */
export class MapThreads {
  private readonly pool: MapThread[];

  constructor(setup: MapThreadSetup, threads: number) {
    this.pool = Array.from({ length: threads }, () => new MapThread(setup));
  }

  /**
   * Each account's outcome, in the order the accounts came: chunks go to the least busy thread, at
   * most two chunks a thread wait, so a consumer that stops pulling stops the reading. When every
   * thread has two chunks waiting, the run's own thread maps the next chunk itself (`here`, made on
   * first use) rather than wait: streaming the rows out of DuckDB leaves it most of a core idle.
   */
  async *map(files: string[], accounts: AsyncIterable<RawAccount>, here?: () => AccountMapper): AsyncGenerator<AccountOutcome> {
    for (const t of this.pool) t.files(files);
    const queue: Promise<AccountOutcome[]>[] = [];
    let mapper: AccountMapper | null = null;
    const send = (chunk: RawAccount[]) => {
      const thread = this.pool.reduce((a, b) => (b.busy < a.busy ? b : a));
      if (here && thread.busy >= 2) {
        mapper ??= here();
        queue.push(mapAll(mapper, chunk));
        return;
      }
      const results = thread.map(chunk);
      results.catch(() => undefined); // awaited in order below
      queue.push(results);
    };
    let chunk: RawAccount[] = [];
    for await (const raw of accounts) {
      chunk.push(raw);
      if (chunk.length < CHUNK_ACCOUNTS) continue;
      send(chunk);
      chunk = [];
      while (queue.length > 2 * this.pool.length) yield* await queue.shift()!;
    }
    if (chunk.length > 0) send(chunk);
    while (queue.length > 0) yield* await queue.shift()!;
  }

  async close(): Promise<void> {
    await Promise.all(this.pool.map((t) => t.close()));
  }
}
