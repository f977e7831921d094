import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { generateBookEntries, type BookOptions } from './book';
import type { ExpectedError } from './violations';

export interface WriteBookOptions extends BookOptions {
  /** NDJSON file, one account per line. */
  out?: string;
  /** Folder of `<external_account_number>.json` files. */
  outDir?: string;
}

export interface WriteBookSummary {
  count: number;
  invalid: number;
  /** Injected violations by code. */
  violations: Record<string, number>;
  bytes: number;
  durationMs: number;
  /** Where the accounts went (file or folder). */
  output: string;
  /** Sidecar: external account number → expected {code, attr}; written only when something was injected. */
  expectedFile?: string;
}

/**
 * The sidecar sits beside the output (`<out>.expected.json`, for a folder `<dir>.expected.json`)
 * so that `migrate --input <dir>` never mistakes it for an account.
 */
export function expectedFileFor(output: string): string {
  return `${output.replace(/[\\/]+$/, '')}.expected.json`;
}

/**
 * Streams the book to disk: NDJSON through one write stream that honours back-pressure, or one
 * file per account. Only the expected-error map (invalid accounts only) is kept in memory.
 */
export async function writeBook(opts: WriteBookOptions): Promise<WriteBookSummary> {
  if ((opts.out === undefined) === (opts.outDir === undefined)) throw new Error('give exactly one of out and outDir');
  const started = Date.now();
  const expected: Record<string, ExpectedError> = {};
  const violations: Record<string, number> = {};
  let count = 0;
  let bytes = 0;
  const output = (opts.out ?? opts.outDir)!;

  if (opts.out !== undefined) {
    await fs.promises.mkdir(path.dirname(path.resolve(opts.out)), { recursive: true });
    const stream = fs.createWriteStream(opts.out);
    const failed = once(stream, 'error').then(([err]) => Promise.reject(err));
    failed.catch(() => undefined);
    for (const { account, expected: e } of generateBookEntries(opts)) {
      const line = `${JSON.stringify(account)}\n`;
      bytes += Buffer.byteLength(line);
      count++;
      if (e) record(account.external_account_number, e);
      if (!stream.write(line)) await Promise.race([once(stream, 'drain'), failed]);
    }
    stream.end();
    await Promise.race([once(stream, 'finish'), failed]);
  } else {
    await fs.promises.mkdir(opts.outDir!, { recursive: true });
    for (const { account, expected: e } of generateBookEntries(opts)) {
      const text = `${JSON.stringify(account, null, 2)}\n`;
      bytes += Buffer.byteLength(text);
      count++;
      if (e) record(account.external_account_number, e);
      await fs.promises.writeFile(path.join(opts.outDir!, `${account.external_account_number}.json`), text);
    }
  }

  const invalid = Object.keys(expected).length;
  let expectedFile: string | undefined;
  if (invalid > 0) {
    expectedFile = expectedFileFor(output);
    await fs.promises.writeFile(expectedFile, `${JSON.stringify(expected, null, 2)}\n`);
  }
  return { count, invalid, violations, bytes, durationMs: Date.now() - started, output, expectedFile };

  function record(external: string, e: ExpectedError) {
    expected[external] = e;
    violations[e.code] = (violations[e.code] ?? 0) + 1;
  }
}
