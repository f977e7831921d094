/**
 * The figures of one side of bench/compare.ts and the before/after table made of two sides
 * (printed by bench/compare.ts, written into bench/RESULTS.md by bench/results.ts).
 */
import type { StatementReport } from './pgStatements';

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
}

/** Rows = figures, columns = before, after, after ÷ before. */
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
  ];
  const ops = [...new Set([...Object.keys(before.temporalRequests.byOperation).slice(0, 8), ...Object.keys(after.temporalRequests.byOperation).slice(0, 8)])];
  for (const op of ops) rows.push([`Temporal ${op}/account`, (s) => s.temporalRequests.byOperation[op] ?? 0, true]);
  return rows.map(([figure, get, r]) => {
    const b = get(before);
    const a = get(after);
    return { figure, before: b ?? '', after: a ?? '', 'after ÷ before': r ? ratio(b, a) : '' };
  });
}

