import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

/**
 * The book, one record at a time: NDJSON read line by line (a file of millions of accounts is
 * never held in memory), or the `*.json` files of a folder in name order. A record that is not
 * a JSON object with an import_supplier and an external_account_number is a parse error that
 * names its line (or file) and never stops the run.
 */
export type InputRecord =
  | { kind: 'account'; where: string; supplier: string; external: string; account: Record<string, unknown> }
  | { kind: 'parse_error'; where: string; detail: string };

function toRecord(text: string, where: string): InputRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'parse_error', where, detail: `not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'parse_error', where, detail: 'not a JSON object' };
  const account = value as Record<string, unknown>;
  const supplier = account.import_supplier;
  const external = account.external_account_number;
  if (typeof supplier !== 'string' || supplier === '' || typeof external !== 'string' || external === '') {
    return { kind: 'parse_error', where, detail: 'import_supplier and external_account_number must be non-empty strings' };
  }
  return { kind: 'account', where, supplier, external, account };
}

export async function isFolder(input: string): Promise<boolean> {
  return (await fs.promises.stat(input)).isDirectory();
}

async function* ndjson(file: string): AsyncGenerator<InputRecord> {
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    yield toRecord(line, `line ${n}`);
  }
}

async function jsonFiles(folder: string): Promise<string[]> {
  const names = await fs.promises.readdir(folder);
  return names.filter((n) => n.endsWith('.json')).sort();
}

async function* folderRecords(folder: string): AsyncGenerator<InputRecord> {
  for (const name of await jsonFiles(folder)) {
    yield toRecord(await fs.promises.readFile(path.join(folder, name), 'utf8'), name);
  }
}

export async function* readInput(input: string): AsyncGenerator<InputRecord> {
  if (await isFolder(input)) yield* folderRecords(input);
  else yield* ndjson(input);
}

/** Number of records (non-blank lines, or files), counted cheaply for the progress display. */
export async function countInput(input: string): Promise<number> {
  if (await isFolder(input)) return (await jsonFiles(input)).length;
  let count = 0;
  let lineHasText = false;
  for await (const chunk of fs.createReadStream(input) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 10) {
        if (lineHasText) count++;
        lineHasText = false;
      } else if (b !== 32 && b !== 13 && b !== 9) lineHasText = true;
    }
  }
  return lineHasText ? count + 1 : count;
}
