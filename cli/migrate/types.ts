/** Shapes shared by the parts of `data-import migrate`. */
import type { Tranche } from '../../lib/tranche';
import type { PhaseTiming } from '../shared/phases';

/** Statuses of the import status operation (spec "Import process status", and STAGED: staged by the platform's v1 create-or-update, not processed). */
export const API_STATUSES = ['STAGED', 'PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'] as const;
export type ApiStatus = (typeof API_STATUSES)[number];

/**
 * Statuses after which the status operation changes no more (until a new create, stage or
 * process). STAGED followed after a run means that run ended and new data was staged over it.
 */
export const TERMINAL_API_STATUSES: readonly ApiStatus[] = ['STAGED', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'];

/**
 * What the client knows of an account. The API statuses, plus:
 * - SUBMITTED: create accepted (201) or already under way (409); not polled yet;
 * - VALID: --validate-only found no error;
 * - VALIDATION_FAILED: the account has validation errors (the report lists them);
 * - FAILED: any other failure (transient failures after the retry bound, unexpected answers);
 *   a re-run retries it;
 * - PARSE_ERROR: the input line or file is not a JSON account;
 * - DUPLICATE_IN_INPUT: a second record with an external account number already seen in this run;
 * - NOT_SUBMITTED: the run stopped before the API answered this account's create (the API stayed
 *   unavailable past --outage-timeout: error code api_unavailable); a re-run sends it again.
 */
export type AccountStatus = ApiStatus | 'SUBMITTED' | 'VALID' | 'VALIDATION_FAILED' | 'FAILED' | 'PARSE_ERROR' | 'DUPLICATE_IN_INPUT' | 'NOT_SUBMITTED';

export interface ErrorItem {
  code: string;
  attr: string;
  detail: string;
}

export interface AccountRecord {
  import_supplier: string;
  status: AccountStatus;
  kraken_identifier?: string | null;
  errors?: ErrorItem[];
  updated_at: string;
  /**
   * The book (tranche) the account came in with: the input of the run that last set its status
   * (a path, resolved). Several tranches may share one --state: each account keeps its own.
   */
  book?: string;
}

/**
 * create: v2 create each account and follow it; validate-only / validate-first: v2 validate first;
 * stage: the platform's v1 create-or-update (STAGED, nothing imported); process: the platform's v1
 * process of each account of the book staged before, followed as a create is.
 */
export type MigrationMode = 'create' | 'validate-only' | 'validate-first' | 'stage' | 'process';

export interface MigrationOptions {
  /** NDJSON file (one account per line) or a folder of `*.json` files. */
  input: string;
  /** Base URL of the API; default http://127.0.0.1:8000. */
  apiUrl?: string;
  /** Organisation API key (the API authenticates every data-import call). */
  apiKey?: string;
  /** Requests in flight at once, for creates and for polls each; default 16. */
  concurrency?: number;
  /** Imports submitted and not yet final at most at once (back-pressure); default 2 × concurrency. */
  maxInFlight?: number;
  /** Default create. */
  mode?: MigrationMode;
  /** Default `<input>.migrate-state.json`. */
  statePath?: string;
  /** Default `<input>.report` (→ .json and .csv). */
  reportPrefix?: string;
  /** Default 1000. */
  pollIntervalMs?: number;
  /** Stop following (as if interrupted) after this long; default none. */
  timeoutMs?: number;
  /**
   * Longest API outage (no answer, or 5xx to everything) waited out before the run stops with the
   * unfinished accounts reported as api_unavailable; default 30 minutes; 0: wait for ever.
   */
  outageTimeoutMs?: number;
  /** Send each create (or process) as a dry-run task (`task_params.is_dry_run`, process `dry_run`): nothing is persisted. */
  dryRunTasks?: boolean;
  /** Also re-send accounts that failed validation or ended ERRORED/CANCELLED in an earlier run. */
  retryFailed?: boolean;
  /** Retries of a 5xx (503 timeout included) to one request while the API answers others, before FAILED; default 6. Outages do not count. */
  maxRetries?: number;
  /** Base and cap of the exponential backoff (full jitter); defaults 250 ms and 20 s. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Aborting stops submitting, saves the state and returns an interrupted summary. */
  signal?: AbortSignal;
  /** Only the book's accounts in this tranche (lib/tranche.ts: the selection map and reconcile make). */
  tranche?: Tranche;
  /** Progress on stderr: auto (bar on a TTY, else a line every 5 s), plain, none. Default auto. */
  progress?: 'auto' | 'plain' | 'none';
  /** Where progress and log lines go; default stderr. */
  log?: (line: string) => void;
}

export interface MigrationSummary {
  input: string;
  mode: MigrationMode;
  /** Accounts (and unparsable records) in the report, by final status. */
  counts: Partial<Record<AccountStatus, number>>;
  total: number;
  /** Accounts skipped because an earlier run left them PROCESSED (or finally failed, without --retry-failed). */
  skipped: number;
  /** Accounts an earlier run submitted that this run followed without a new create. */
  resumed: number;
  /** Requests sent; `status` counts the status requests, a bulk one (up to 500 accounts) as one. */
  requests: { create: number; validate: number; stage: number; process: number; status: number; token: number; retries: number; throttled: number };
  durationMs: number;
  /** Accounts that reached a final state in this run, per second. */
  accountsPerSecond: number;
  /** Time from the 201 to the first poll that saw PROCESSED; resolution: the poll interval. */
  latencyMs: { p50: number | null; p95: number | null; samples: number; resolutionMs: number };
  interrupted: boolean;
  timedOut: boolean;
  /** The run stopped because the API stayed unavailable longer than the outage timeout. */
  apiUnavailable: boolean;
  /** Outages of the API this run waited out (or gave up on): how many, how long in all, the longest. */
  outages: { count: number; totalMs: number; longestMs: number };
  /** Each phase (reading the book, sending, following): what it counted and how long it took. */
  phases: PhaseTiming[];
  statePath: string | null;
  reportJson: string;
  reportCsv: string;
}
