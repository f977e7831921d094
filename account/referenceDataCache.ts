import type { Knex } from 'knex';
import { buildReferenceData, type ReferenceData, type ReferenceDataRow } from './referenceData';
import { listReferenceData, referenceDataVersion } from './referenceDataStore';

/** Where the cache reads from; the default reads the `reference_data` table. Tests pass a fake. */
export interface ReferenceDataSource {
  /** Changes whenever the data changes (cheap to read). */
  version(): Promise<string>;
  rows(): Promise<ReferenceDataRow[]>;
}

export interface ReferenceDataCacheOptions {
  /** How often the version is polled. Default 2 s: an operator change is visible within seconds. */
  pollIntervalMs?: number;
  source?: ReferenceDataSource;
  onError?: (err: unknown) => void;
}

/**
 * Holds the reference data in memory for the validators, which must not query per request.
 * Polls a fingerprint (`max(modified_at)`, `count(*)`) every few seconds and reloads the
 * table only when it changed: one indexed aggregate per poll, whatever the request rate.
 * A failed poll keeps the last good data (validation keeps working while the database blips).
 */
export class ReferenceDataCache {
  private data: ReferenceData | null = null;
  private version: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> | null = null;
  private readonly source: ReferenceDataSource;
  private readonly pollIntervalMs: number;
  private readonly onError: (err: unknown) => void;

  constructor(db: Knex, opts: ReferenceDataCacheOptions = {}) {
    this.source = opts.source ?? { version: () => referenceDataVersion(db), rows: () => listReferenceData(db) };
    this.pollIntervalMs = opts.pollIntervalMs ?? 2000;
    this.onError = opts.onError ?? (() => undefined);
  }

  /** Loads the data (failing if it cannot) and starts polling. */
  async start(): Promise<void> {
    await this.refresh();
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.poll().catch(this.onError);
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  current(): ReferenceData {
    if (!this.data) throw new Error('ReferenceDataCache.current() called before start()');
    return this.data;
  }

  /** Reloads now when the data changed since the last load (always on the first call). */
  async refresh(): Promise<void> {
    if (this.inflight) return this.inflight;
    this.inflight = (async () => {
      const version = await this.source.version();
      if (this.data !== null && version === this.version) return;
      const rows = await this.source.rows();
      // A change between reading the version and the rows: the data is good, its version unknown
      // (no validation fingerprint until the next reload; account/fingerprint.ts).
      const settled = (await this.source.version()) === version;
      this.data = { ...buildReferenceData(rows), version: settled ? version : undefined };
      this.version = version;
    })().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.inflight) await this.inflight.catch(() => undefined);
  }

  private async poll(): Promise<void> {
    await this.refresh();
  }
}
