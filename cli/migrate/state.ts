import fs from 'node:fs';
import path from 'node:path';
import type { AccountRecord, AccountStatus, ErrorItem } from './types';

/**
 * What a run knows per external account number, kept in a JSON file so that a later run resumes:
 * written atomically (temporary file + rename: a crash leaves the old file or the new one, never
 * half of one), at most every `flushEveryMs` while running and once at the end.
 */
export interface StateDocument {
  version: 1;
  input: string;
  updated_at: string;
  accounts: Record<string, AccountRecord>;
}

export class MigrationState {
  private readonly accounts: Map<string, AccountRecord>;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    /** null: kept in memory only (--validate-only leaves the resumable state alone). */
    readonly file: string | null,
    private readonly input: string,
    accounts: Record<string, AccountRecord>,
  ) {
    this.accounts = new Map(Object.entries(accounts));
    this.book = path.resolve(input);
  }

  /** The book of this run, recorded with every account whose status it sets. */
  readonly book: string;

  static async load(file: string | null, input: string): Promise<MigrationState> {
    if (file === null) return new MigrationState(null, input, {});
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new MigrationState(file, input, {});
      throw err;
    }
    const doc = JSON.parse(text) as Partial<StateDocument>;
    if (doc.version !== 1 || typeof doc.accounts !== 'object' || doc.accounts === null) {
      throw new Error(`${file} is not a migration state file (version 1)`);
    }
    return new MigrationState(file, input, doc.accounts);
  }

  get(external: string): AccountRecord | undefined {
    return this.accounts.get(external);
  }

  set(external: string, supplier: string, status: AccountStatus, extra: { kraken_identifier?: string | null; errors?: ErrorItem[] } = {}): void {
    const record: AccountRecord = { import_supplier: supplier, status, updated_at: new Date().toISOString(), book: this.book };
    if (extra.kraken_identifier) record.kraken_identifier = extra.kraken_identifier;
    if (extra.errors && extra.errors.length > 0) record.errors = extra.errors;
    this.accounts.set(external, record);
    this.dirty = true;
  }

  entries(): IterableIterator<[string, AccountRecord]> {
    return this.accounts.entries();
  }

  get size(): number {
    return this.accounts.size;
  }

  startAutoFlush(everyMs = 1000): void {
    if (this.file === null) return;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Writes the file if anything changed; writes never overlap. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (this.file === null || !this.dirty) return;
      this.dirty = false;
      const doc: StateDocument = { version: 1, input: this.input, updated_at: new Date().toISOString(), accounts: Object.fromEntries(this.accounts) };
      await writeAtomically(this.file, JSON.stringify(doc));
    });
    return this.writing;
  }
}

export async function writeAtomically(file: string, text: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, text);
  await fs.promises.rename(tmp, file);
}
