import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../lib/thread';
import { accountDigest } from '../../account/canonical';
import { readInputTexts, toRecord, type InputText, type TextSource } from '../shared/input';
import { accountTotals, type Totals } from './totals';

/**
 * A record of the book as the reconciliation needs it: digest and totals worked out, and where its
 * text is in the book (read again only for a mismatched account: cli/shared/input.ts readText), so
 * that nothing the size of an account outlives its digest.
 */
export type DigestedRecord =
  | { kind: 'account'; where: string; supplier: string; external: string; digest: string; totals: Totals; source: TextSource }
  | { kind: 'parse_error'; where: string; detail: string };

/** What a worker thread sends back for one record: everything but the source, which the reader kept. */
type Digested = Exclude<DigestedRecord, { kind: 'account' }> | Omit<Extract<DigestedRecord, { kind: 'account' }>, 'source'>;

/** Parses, checks, hashes (account/canonical.ts accountDigest) and totals records of the book. */
export function digestTexts(items: readonly Omit<InputText, 'source'>[]): Digested[] {
  return items.map(({ where, text }) => {
    const r = toRecord(text, where);
    if (r.kind === 'parse_error') return r;
    return { kind: 'account', where, supplier: r.supplier, external: r.external, digest: accountDigest(r.account), totals: accountTotals(r.account) };
  });
}

/** Threads that parse and hash the book by default: the machine's cores, at most 4 (the reader is a thread too). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/** Records sent to a thread at once. */
const CHUNK_RECORDS = 64;
/** ...or fewer, once their text reaches this many characters. */
const CHUNK_CHARS = 4 << 20;
/**
 * Each thread's V8 heap: a chunk's accounts parsed one at a time, so the live set is one account
 * (a create body is at most a few MiB) and the chunk's results.
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

interface Pending {
  resolve: (r: Digested[]) => void;
  reject: (e: unknown) => void;
}

class DigestThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private failed: Error | null = null;

  constructor() {
    this.worker = startThread(__dirname, __filename, 'digestThread', { resourceLimits: THREAD_LIMITS });
    this.worker.on('message', (m: { id: number; results: Digested[] }) => {
      this.pending.get(m.id)?.resolve(m.results);
      this.pending.delete(m.id);
    });
    const fail = (err: Error) => {
      this.failed ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(new Error(`a thread digesting the book failed: ${err.message}`)));
    this.worker.on('exit', (code) => fail(new Error(`a thread digesting the book ended (exit ${code})`)));
  }

  get busy(): number {
    return this.pending.size;
  }

  digest(items: Omit<InputText, 'source'>[]): Promise<Digested[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, items });
    });
  }

  async close(): Promise<void> {
    this.failed ??= new Error('closed');
    await this.worker.terminate();
  }
}

/**
 * The book's records in book order, each parsed, hashed and totalled by `threads` worker threads
 * (0: in this thread), chunks of records read ahead while the threads work; at most two chunks per
 * thread wait, so a consumer that stops pulling stops the reading.
 */
export async function* digestedRecords(input: string, threads: number): AsyncGenerator<DigestedRecord> {
  if (threads <= 0) {
    for await (const item of readInputTexts(input)) yield withSource(digestTexts([item])[0]!, item.source);
    return;
  }
  const pool = Array.from({ length: threads }, () => new DigestThread());
  const queue: { sources: TextSource[]; results: Promise<Digested[]> }[] = [];
  const send = (items: InputText[]) => {
    const thread = pool.reduce((a, b) => (b.busy < a.busy ? b : a));
    const results = thread.digest(items.map(({ where, text }) => ({ where, text })));
    results.catch(() => undefined); // awaited in order below
    queue.push({ sources: items.map((i) => i.source), results });
  };
  async function* drain(keep: number): AsyncGenerator<DigestedRecord> {
    while (queue.length > keep) {
      const { sources, results } = queue.shift()!;
      const digested = await results;
      for (let i = 0; i < digested.length; i++) yield withSource(digested[i]!, sources[i]!);
    }
  }
  try {
    let chunk: InputText[] = [];
    let chars = 0;
    for await (const item of readInputTexts(input)) {
      chunk.push(item);
      chars += item.text.length;
      if (chunk.length >= CHUNK_RECORDS || chars >= CHUNK_CHARS) {
        send(chunk);
        chunk = [];
        chars = 0;
        yield* drain(threads * 2);
      }
    }
    if (chunk.length > 0) send(chunk);
    yield* drain(0);
  } finally {
    await Promise.all(pool.map((t) => t.close()));
  }
}

function withSource(d: Digested, source: TextSource): DigestedRecord {
  return d.kind === 'account' ? { ...d, source } : d;
}
