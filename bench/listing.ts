/**
 * bench/listing: the full per-supplier listing of 1,000,000 import processes (inserted directly
 * with INSERT ... SELECT generate_series into the benchmark's own database, dropped afterwards),
 * streamed over HTTP from the API process as production runs it. Prints and records rows/s, MB/s,
 * time to first byte, and the API's resident memory: before, sampled during, and its peak
 * (VmHWM) — the memory bound is that the peak does not grow with the listing's length. Also a
 * client that stops reading for a while (backpressure: the API must not buffer the rest), and
 * the same listing fetched page by page with limit/after.
 *
 *   npm run bench:listing          (BENCH_ROWS=200000 for a shorter run)
 */
import fs from 'node:fs';
import { createDb } from '../db/knex';
import { insertGeneratedProcesses } from './lib/importProcessRows';
import { obtainToken, startBenchStack, writeResult } from './lib/stack';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PAGE = 10_000;
// Every item starts with this key, once: counting it counts items without parsing the body.
const ITEM_KEY = '{"external_account_number"';

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

interface StreamRun {
  client: string;
  rows: number;
  seconds: number;
  'rows/s': number;
  'MB/s': number;
  'first byte ms': number;
  'API RSS before MiB': number;
  'API RSS max sampled MiB': number;
  'API peak RSS (VmHWM) MiB': number;
}

async function main() {
  const stack = await startBenchStack();
  const runs: StreamRun[] = [];
  let paged: Record<string, number> | undefined;
  try {
    const db = createDb(stack.databaseUrl, 2);
    const t0 = performance.now();
    await insertGeneratedProcesses(db, 'DEMO_ENERGY', ROWS, 'LIST');
    await db.raw('ANALYZE import_processes; ANALYZE accounts');
    const insertSeconds = (performance.now() - t0) / 1000;
    await db.destroy();
    console.log(`inserted ${ROWS} import processes (+ ${ROWS / 2} accounts) in ${insertSeconds.toFixed(1)} s`);

    const token = await obtainToken(stack.apiUrl, stack.apiKey);
    const headers = { authorization: `Token ${token}` };
    const apiPid = stack.api.pid!;
    const url = `${stack.apiUrl}/v1/data-import/all-account-import-processes/DEMO_ENERGY/`;

    for (const client of ['reads at full speed', 'stops reading for 5 s midway']) {
      const before = rssMiB(apiPid);
      let maxSampled = before;
      const sampler = setInterval(() => (maxSampled = Math.max(maxSampled, rssMiB(apiPid))), 100);
      const started = performance.now();
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
      const reader = res.body!.getReader();
      let firstByte = NaN;
      let bytes = 0;
      let rows = 0;
      let pauseDue = client.startsWith('stops');
      const decoder = new TextDecoder();
      let tail = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (Number.isNaN(firstByte)) firstByte = performance.now() - started;
        bytes += value.byteLength;
        // Count items by their first key; a key split across chunks is caught by the carried tail.
        const text = tail + decoder.decode(value, { stream: true });
        rows += text.split(ITEM_KEY).length - 1;
        tail = text.slice(-(ITEM_KEY.length - 1));
        if (pauseDue && rows >= ROWS / 2) {
          pauseDue = false;
          await new Promise((r) => setTimeout(r, 5000));
        }
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      if (rows !== ROWS) throw new Error(`listed ${rows} rows, expected ${ROWS}`);
      const run: StreamRun = {
        client,
        rows,
        seconds: Number(seconds.toFixed(1)),
        'rows/s': Math.round(rows / seconds),
        'MB/s': Number((bytes / 1e6 / seconds).toFixed(1)),
        'first byte ms': Math.round(firstByte),
        'API RSS before MiB': before,
        'API RSS max sampled MiB': maxSampled,
        'API peak RSS (VmHWM) MiB': stack.peakRssMiB(stack.api),
      };
      console.log(run);
      runs.push(run);
    }

    // The same listing page by page (limit + after from Link rel="next").
    const pagedStart = performance.now();
    let next: string | undefined = `/v1/data-import/all-account-import-processes/DEMO_ENERGY/?limit=${PAGE}`;
    let pagedRows = 0;
    let pages = 0;
    while (next) {
      const res = await fetch(`${stack.apiUrl}${next}`, { headers });
      pagedRows += ((await res.json()) as unknown[]).length;
      pages++;
      const link = res.headers.get('link');
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    const pagedSeconds = (performance.now() - pagedStart) / 1000;
    if (pagedRows !== ROWS) throw new Error(`paged ${pagedRows} rows, expected ${ROWS}`);
    paged = { pageSize: PAGE, pages, seconds: Number(pagedSeconds.toFixed(1)), 'rows/s': Math.round(ROWS / pagedSeconds), 'API peak RSS (VmHWM) MiB': stack.peakRssMiB(stack.api) };
    console.log('paged', paged);
    console.log(`written ${writeResult('listing', { rows: ROWS, insertSeconds: Number(insertSeconds.toFixed(1)), stream: runs, paged })}`);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
