/**
 * `data-import map` benchmark (issue 49): a generated book of MAP_SIZE accounts (default 10,000,
 * profile MAP_PROFILE, default typical) written as a legacy extract (`generate --legacy-extract`),
 * then mapped back with examples/roundtrip/mapping.yaml, once without the service's validator and
 * once with it. Prints the extract's size, each run's time, accounts per second and the peak RSS
 * of this process (VmHWM), and checks every account came back with its digest (a run where one did
 * not is no figure: the benchmark fails).
 *
 *   npm run bench:map                      (10,000 of the generator's typical accounts, ≈ 20 KB of CSV each)
 *   MAP_HISTORY=none npm run bench:map     (10,000 accounts of the size: the rehearsal target, < 10 s)
 *   MAP_SIZE=1000000 MAP_HISTORY=none npm run bench:map   (the million: ≤ 6 / ≤ 15 min, ≤ 8 GB)
 *
 * MAP_THREADS=<n> sets the worker threads that build and validate accounts (0: none, all in the run's
 * own thread); MAP_KEEP=1 also keeps the books written (to compare with `cmp`).
 *
 * MAP_MEMORY_LIMIT=<size> sets DuckDB's memory limit (`--memory-limit`, e.g. 200MB: smaller than the
 * rows need, so DuckDB spills); the peak size of the run's DuckDB folder (database file and spill
 * files, sampled every 100 ms) is printed with each run.
 *
 * MAP_HISTORY=none leaves each ledger's historical statement transactions out of the generated book
 * (the open statement's transactions stay): about 6 KB of CSV per typical account instead of 20 KB,
 * the account size of the target (1 million accounts, about 6 GB of CSV). Most of a
 * `typical` account's bytes and rows are that history (≈ 100 transactions a row each).
 *
 * MAP_EXTRACT=<folder> maps an extract already written (its digests in <folder>.digests, one a line,
 * as this script leaves them with MAP_KEEP=1) instead of generating one: generation is most of a
 * large run's time. CPU seconds are printed beside the wall time: on a shared machine they are the
 * figure that does not depend on the neighbours (bench/RESULTS.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { accountDigest } from '../account/canonical';
import { generateBook, type Profile } from '../cli/generate';
import { mapMainThreadHeap, runMap, writeLegacyExtract } from '../mapping';

function peakRssMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Math.round(process.memoryUsage().rss / 2 ** 20);
}

function folderBytes(dir: string): number {
  return fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

/** Bytes of the files under a folder, sub-folders included (0 for one gone meanwhile). */
function treeBytes(dir: string): number {
  let n = 0;
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      n += e.isDirectory() ? treeBytes(p) : fs.statSync(p, { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    return n;
  }
  return n;
}

async function main(): Promise<void> {
  mapMainThreadHeap(); // as `data-import map` does
  const size = Number(process.env.MAP_SIZE ?? 10_000);
  const profile = (process.env.MAP_PROFILE ?? 'typical') as Profile;
  const history = process.env.MAP_HISTORY !== 'none';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-map-'));
  try {
    let extract = path.join(work, 'extract');
    let t = Date.now();
    let digests: string[] = [];
    if (process.env.MAP_EXTRACT) {
      extract = process.env.MAP_EXTRACT;
      digests = fs.readFileSync(`${extract}.digests`, 'utf8').split('\n');
    } else {
      const book = (function* () {
        for (const a of generateBook({ seed: 'bench-map', count: size, profile })) {
          if (!history) for (const l of a.ledgers ?? []) delete l.historical_statement_transactions;
          digests.push(accountDigest(a));
          yield a as unknown as Record<string, unknown>;
        }
      })();
      writeLegacyExtract(book, extract);
      if (process.env.MAP_KEEP) fs.writeFileSync(`${extract}.digests`, digests.join('\n'));
    }
    console.log(`extract: ${size} ${profile} accounts${history ? '' : ' without statement history'}, ${(folderBytes(extract) / 1e6).toFixed(1)} MB of CSV in ${fs.readdirSync(extract).length} files, ${process.env.MAP_EXTRACT ? 'read from' : 'written to'} ${extract} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // MAP_VALIDATE=no|yes runs one of the two (a large run takes long on a shared machine).
    // MAP_THREADS=n: worker threads building and validating accounts (0: the run's own thread; default: cores but one).
    const threads = process.env.MAP_THREADS === undefined ? undefined : Number(process.env.MAP_THREADS);
    const runs = process.env.MAP_VALIDATE === 'no' ? [false] : process.env.MAP_VALIDATE === 'yes' ? [true] : [false, true];
    for (const validate of runs) {
      const out = path.join(work, `book-${validate}.ndjson`);
      const tempDir = path.join(work, `engine-${validate}`);
      fs.mkdirSync(tempDir);
      let engineBytes = 0;
      const sampler = setInterval(() => (engineBytes = Math.max(engineBytes, treeBytes(tempDir))), 100);
      t = Date.now();
      const cpu = process.cpuUsage();
      // When the last rows were read and when the first account came out: the run's three phases
      // (loading the extract into DuckDB; joining and sorting the rows by account; building).
      let lastRead = t;
      let firstAccount = 0;
      const s = await runMap({
        mapping: path.join(__dirname, '../examples/roundtrip/mapping.yaml'),
        extracts: extract,
        out,
        validate,
        threads,
        tempDir,
        memoryLimit: process.env.MAP_MEMORY_LIMIT,
        onRowsRead: () => (lastRead = Date.now()),
        onProgress: () => (firstAccount ||= Date.now()),
      }).finally(() => clearInterval(sampler));
      const seconds = (Date.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      // Line by line: a book of 100,000 accounts is longer than a JavaScript string may be.
      let same = 0;
      let i = 0;
      for await (const l of readline.createInterface({ input: fs.createReadStream(out), crlfDelay: Infinity })) {
        if (l !== '' && accountDigest(JSON.parse(l)) === digests[i]) same++;
        i++;
      }
      const phases = `loading ${((lastRead - t) / 1000).toFixed(1)} s, joining and sorting ${((firstAccount - lastRead) / 1000).toFixed(1)} s, building ${(seconds - (firstAccount - t) / 1000).toFixed(1)} s`;
      console.log(`map ${validate ? 'with' : 'without'} validation: ${s.stats.valid} valid, ${s.stats.quarantined} quarantined in ${seconds.toFixed(1)} s (${phases}; ${Math.round(size / seconds)} accounts/s; ${cpuSeconds.toFixed(1)} s of CPU, load average ${os.loadavg()[0].toFixed(1)}; threads ${threads ?? 'default'}); digests equal ${same}/${size}; peak RSS so far ${peakRssMiB()} MiB; DuckDB folder peak ${(engineBytes / 2 ** 20).toFixed(0)} MiB, memory limit ${process.env.MAP_MEMORY_LIMIT ?? 'default'}`);
      if (same !== size) throw new Error('not every account came back with its digest: no figure');
    }
  } finally {
    if (process.env.MAP_KEEP) console.log(`extract kept in ${work}/extract`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
