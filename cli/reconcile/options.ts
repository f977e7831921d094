/** The options of `data-import reconcile` (cli/commands/reconcile.ts makes them of its flags). */
import type { Tranche } from '../../lib/tranche';

export interface ReconcileOptions {
  /** NDJSON file (one account per line) or a folder of `*.json` files: the book, as migrate reads it. */
  input: string;
  apiUrl?: string;
  apiKey?: string;
  /** Bulk digest requests in flight at once; default 4. */
  concurrency?: number;
  /** Worker threads parsing and hashing the book; default defaultThreads() (0: this thread). */
  threads?: number;
  /** Accounts per bulk digest request, 1–500; default 500. */
  batchSize?: number;
  /** Default `<input>.reconcile-state.ndjson`. */
  statePath?: string;
  /** Default `<input>.reconcile` (→ .json and .csv). */
  reportPrefix?: string;
  /** Ignore (and replace) the state of an earlier run. */
  restart?: boolean;
  maxPaths?: number;
  /**
   * What is asked about the supplier's accounts outside the book (docs/bulk-migration.md,
   * "Tranches"): `count` (default) one totals request per supplier: how many there are and the
   * supplier's totals, beside the book's, not a finding (a tranche is signed off alone); `list`
   * the whole supplier is signed off: each one listed in the report as `extra` (the listing, paged),
   * the platform's totals are the supplier's, and any extra account is a finding (exit 3); `off`
   * nothing asked.
   */
  extras?: ExtrasMode;
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Longest API outage waited out; default 30 minutes; 0: wait for ever. */
  outageTimeoutMs?: number;
  signal?: AbortSignal;
  progress?: 'auto' | 'plain' | 'none';
  /** Only the book's accounts in this tranche (lib/tranche.ts: the selection map and migrate make). */
  tranche?: Tranche;
  log?: (line: string) => void;
}

export const EXTRAS_MODES = ['off', 'count', 'list'] as const;
export type ExtrasMode = (typeof EXTRAS_MODES)[number];
