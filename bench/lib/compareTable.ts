/**
 * The figures of one side of bench/compare.ts and the before/after table made of two sides
 * (printed by bench/compare.ts, written into bench/RESULTS.md by bench/results.ts).
 */
import type { StatementReport } from './pgStatements';
import type { StorageReport } from './pgStorage';
import type { ValidationReport } from './validationTime';

export interface Commit {
  ref: string;
  sha: string;
  subject: string;
  /** True when the side ran the working tree with uncommitted changes. */
  dirty?: boolean;
}

export interface SideResult {
  commit: Commit;
  accounts: number;
  processed: number;
  counts: Record<string, number>;
  accountsPerSecond: number;
  latencyMs: { p50: number; p95: number };
  /** Raw baseline ÷ accounts/s. */
  orchestrationRatio: number;
  cpuMsPerAccount: { worker: number; temporal: number; postgres: number; api: number; client: number; total: number };
  peakRssMiB: { worker: number; api: number };
  statements: StatementReport;
  temporalRequests: { perAccount: number; frontendPerAccount: number; persistencePerAccount: number; byOperation: Record<string, number> };
  durationMs: number;
  /** ms after the client finished until the relay and the digest filler had nothing left (inside the CPU window). */
  settledAfterMs?: number;
  /** BENCH_BEFORE_ENV / BENCH_AFTER_ENV of that side. */
  env?: Record<string, string>;
  /** What the import left in PostgreSQL; null when no account was PROCESSED (absent in runs before it was measured). */
  storage?: StorageReport | null;
  /** That side's validator on the same book, in process. */
  validation?: ValidationReport;
}

/** One profile on one stack kind: both sides. */
export interface ProfileRun {
  profile: string;
  stack: 'memory' | 'as-run';
  accounts: number;
  seed: string;
  baselinePerSecond: number;
  before: SideResult;
  after: SideResult;
}

/** Bytes as KB with one decimal ('n/a' when not measured, e.g. nothing PROCESSED). */
const kb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : +(bytes / 1024).toFixed(1));
const finite = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n);

/** Rows = figures, columns = before, after, after ÷ before. PostgreSQL bytes in KB. */
export function compareRows(before: SideResult, after: SideResult, baseline: number): { figure: string; before: string | number; after: string | number; 'after ÷ before': string }[] {
  const ratio = (b: unknown, a: unknown) => (typeof b === 'number' && typeof a === 'number' && b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}` : '');
  const rows: [string, (s: SideResult) => number | string | undefined, boolean?][] = [
    ['accounts PROCESSED', (s) => `${s.processed} / ${s.accounts}`],
    ['settings', (s) => (s.env ? Object.entries(s.env).map(([k, v]) => `${k}=${v}`).join(' ') : '')],
    ['accounts/s end to end', (s) => s.accountsPerSecond, true],
    ['p50 create→PROCESSED (ms)', (s) => s.latencyMs.p50, true],
    ['p95 create→PROCESSED (ms)', (s) => s.latencyMs.p95, true],
    ['raw baseline accounts/s (store code only, this tree)', () => baseline],
    ['orchestration cost (baseline ÷ end to end)', (s) => s.orchestrationRatio, true],
    ['CPU ms/account: worker', (s) => s.cpuMsPerAccount.worker, true],
    ['CPU ms/account: Temporal dev server', (s) => s.cpuMsPerAccount.temporal, true],
    ['CPU ms/account: PostgreSQL (all server processes)', (s) => s.cpuMsPerAccount.postgres, true],
    ['CPU ms/account: API', (s) => s.cpuMsPerAccount.api, true],
    ['CPU ms/account: migrate client', (s) => s.cpuMsPerAccount.client, true],
    ['CPU ms/account: total', (s) => s.cpuMsPerAccount.total, true],
    ['deferred work done after the client (ms, in the window)', (s) => s.settledAfterMs],
    ['peak RSS worker (MiB)', (s) => s.peakRssMiB.worker, true],
    ['peak RSS API (MiB)', (s) => s.peakRssMiB.api, true],
    ['PostgreSQL statements/account', (s) => (s.statements.available ? s.statements.callsPerAccount : 'n/a'), true],
    ['PostgreSQL execution ms/account', (s) => (s.statements.available ? s.statements.msPerAccount : 'n/a'), true],
    ['Temporal server requests/account (all services)', (s) => s.temporalRequests.perAccount, true],
    ['Temporal frontend requests/account', (s) => s.temporalRequests.frontendPerAccount, true],
    ['Temporal persistence requests/account', (s) => s.temporalRequests.persistencePerAccount, true],
    ['PostgreSQL bytes/account (growth of every relation)', (s) => kb(s.storage?.bytesPerAccount), true],
    ['PostgreSQL bytes/account: account tables with indexes', (s) => kb(s.storage?.accountTableBytesPerAccount), true],
    ['PostgreSQL bytes/account: account rows (pg_column_size)', (s) => kb(s.storage?.rowBytesPerAccount), true],
    ['validation: accounts valid', (s) => (s.validation ? (s.validation.error ? `n/a: ${s.validation.error}` : `${s.validation.valid} / ${s.validation.accounts}`) : '')],
    ['validation ms/account: median (in process)', (s) => finite(s.validation?.medianMs), true],
    ['validation ms/account: p99', (s) => finite(s.validation?.p99Ms), true],
  ];
  const ops = [...new Set([...Object.keys(before.temporalRequests.byOperation).slice(0, 8), ...Object.keys(after.temporalRequests.byOperation).slice(0, 8)])];
  for (const op of ops) rows.push([`Temporal ${op}/account`, (s) => s.temporalRequests.byOperation[op] ?? 0, true]);
  return rows.map(([figure, get, r]) => {
    const b = get(before);
    const a = get(after);
    return { figure, before: b ?? '', after: a ?? '', 'after ÷ before': r ? ratio(b, a) : '' };
  });
}


export interface TargetFigure {
  figure: string;
  value: string;
  target?: string;
  met?: boolean;
}

/**
 * The targets of issue 35 from a run's profiles (each on the in-memory stack when it ran, else as
 * run): a typical account's CPU per account within 5 % of before; a full account's at most twice a
 * typical one's (after side); a full account validated in under 2 ms (after side's median); and
 * the storage per full account (after side), reported.
 */
export function compareTargets(profiles: Record<string, ProfileRun>): TargetFigure[] {
  const of = (profile: string) => profiles[profile] ?? profiles[`${profile}, as run`];
  const typical = of('typical');
  const full = of('full');
  const out: TargetFigure[] = [];
  if (typical) {
    const ratio = typical.after.cpuMsPerAccount.total / typical.before.cpuMsPerAccount.total;
    out.push({ figure: 'typical account, CPU ms/account after ÷ before', value: `${typical.after.cpuMsPerAccount.total} ÷ ${typical.before.cpuMsPerAccount.total} = ${ratio.toFixed(2)}`, target: '≤ 1.05', met: ratio <= 1.05 });
  }
  if (typical && full && typical.stack === full.stack) {
    const ratio = full.after.cpuMsPerAccount.total / typical.after.cpuMsPerAccount.total;
    out.push({ figure: 'full account ÷ typical account, CPU ms/account (after)', value: `${full.after.cpuMsPerAccount.total} ÷ ${typical.after.cpuMsPerAccount.total} = ${ratio.toFixed(2)}`, target: '≤ 2', met: ratio <= 2 });
  }
  if (full?.after.validation && !full.after.validation.error) {
    const v = full.after.validation;
    out.push({ figure: 'full account validation, median ms (after)', value: `${v.medianMs} (p99 ${v.p99Ms}; ${v.valid} of ${v.accounts} valid)`, target: '< 2', met: v.medianMs < 2 });
  }
  if (full?.after.storage) {
    const s = full.after.storage;
    out.push({ figure: 'storage per full account (after)', value: `${kb(s.bytesPerAccount)} KB in PostgreSQL (account tables ${kb(s.accountTableBytesPerAccount)} KB with indexes, rows ${kb(s.rowBytesPerAccount)} KB)` });
  }
  return out;
}
