import type { Knex } from 'knex';
import { type AffectedImport, IMPORT_STATUSES, ImportProcess, trancheCounts } from '../imports';
import { supplierCodes } from '../suppliers';
import { outboxBacklog } from '../events/outbox';
import { setAsideCounts } from '../maintenance';
import * as store from './store';
import type { ImportRecord, Summary, Tranche } from './schema';

/** The numbers of the operations page, for one supplier (or all): the page, its JSON and the CLI share this. */

export const RATE_WINDOW_MINUTES = 10;
export const TOP_ERRORS = 20;
const MINUTE = 60_000;

export interface TemporalLinks {
  uiUrl: string;
  namespace: string;
}

/**
 * The q-quantile (0..1) of a histogram whose bucket i holds values from bounds[i] up to
 * bounds[i+1]: linear within the bucket; the open last bucket answers its lower bound.
 */
export function histogramQuantile(histogram: readonly number[], bounds: readonly number[], q: number): number {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < histogram.length; i++) {
    const n = histogram[i]!;
    if (n > 0 && below + n >= rank) {
      const lo = bounds[i]!;
      const hi = bounds[i + 1];
      if (hi === undefined) return lo;
      return lo + ((hi - lo) * Math.max(0, rank - below)) / n;
    }
    below += n;
  }
  return bounds[bounds.length - 1]!;
}

/** Time bins of the latency series: about 24 points whatever the width. */
export const latencyBinMinutes = (hours: number) => Math.max(5, Math.round((hours * 60) / 24 / 5) * 5);

export async function buildSummary(db: Knex, opts: { supplier: string | null; hours: number; temporal: TemporalLinks }): Promise<Summary> {
  const { supplier, hours } = opts;
  const now = await store.databaseNow(db);
  const since = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE - hours * 60 * MINUTE);
  const binMinutes = latencyBinMinutes(hours);
  const [counts, minutes, latency, bounds, outbox, suppliers, setAside] = await Promise.all([
    store.rollupCounts(db, supplier),
    store.processedPerMinute(db, supplier, since),
    store.latencyHistograms(db, supplier, since, binMinutes),
    store.latencyBoundsMs(db),
    outboxBacklog(db),
    supplierCodes(db),
    setAsideCounts(db),
  ]);

  const byStatus = Object.fromEntries(IMPORT_STATUSES.map((s) => [s, 0])) as Summary['imports']['by_status'];
  const errors = new Map<string, number>();
  const registrations: Record<string, number> = {};
  const emails: Record<string, number> = {};
  for (const c of counts) {
    if (c.kind === 'import') {
      if (c.status in byStatus) byStatus[c.status as keyof typeof byStatus] += c.n;
      if (c.errorCode) errors.set(c.errorCode, (errors.get(c.errorCode) ?? 0) + c.n);
    } else {
      const into = c.kind === 'registration' ? registrations : emails;
      into[c.status] = (into[c.status] ?? 0) + c.n;
    }
  }
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);

  // The rate: PROCESSED over the last RATE_WINDOW_MINUTES, the current (partial) minute included.
  const windowStart = Math.floor(now.getTime() / MINUTE) * MINUTE - (RATE_WINDOW_MINUTES - 1) * MINUTE;
  const inWindow = minutes.filter((m) => m.minute.getTime() >= windowStart).reduce((a, m) => a + m.processed, 0);
  const elapsedMinutes = (now.getTime() - windowStart) / MINUTE;
  const perMinute = inWindow / elapsedMinutes;
  const remaining = byStatus.PENDING + byStatus.IN_PROGRESS;
  const etaSeconds = perMinute > 0 ? Math.round((remaining / perMinute) * 60) : null;

  return {
    generated_at: now.toISOString(),
    import_supplier: supplier,
    suppliers,
    hours,
    imports: { total, by_status: byStatus, processed_share: total ? byStatus.PROCESSED / total : 0 },
    rate: {
      window_minutes: RATE_WINDOW_MINUTES,
      processed_per_minute: Math.round(perMinute * 100) / 100,
      remaining,
      eta_seconds: remaining === 0 ? 0 : etaSeconds,
      eta_at: etaSeconds === null ? null : new Date(now.getTime() + (remaining === 0 ? 0 : etaSeconds) * 1000).toISOString(),
    },
    processed_per_minute: minutes.map((m) => ({ minute: m.minute.toISOString(), processed: m.processed })),
    latency: {
      bin_minutes: binMinutes,
      points: latency.map((b) => ({
        at: b.bin.toISOString(),
        processed: b.histogram.reduce((a, x) => a + x, 0),
        p50_ms: Math.round(histogramQuantile(b.histogram, bounds, 0.5)),
        p95_ms: Math.round(histogramQuantile(b.histogram, bounds, 0.95)),
      })),
    },
    errors: [...errors.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, TOP_ERRORS)
      .map(([code, count]) => ({ code, count })),
    registrations,
    emails,
    outbox: { backlog: outbox.count, oldest_age_seconds: Math.round(outbox.oldestAgeSeconds * 10) / 10 },
    set_aside: setAside,
    temporal: { ui_url: opts.temporal.uiUrl, namespace: opts.temporal.namespace },
  };
}

/** Where an import is seen: this listener's record view, the API's status operation, the Temporal UI. */
export function importLinks(p: { importSupplier: string; externalAccountNumber: string; workflowId: string }, temporal: TemporalLinks) {
  const s = encodeURIComponent(p.importSupplier);
  const e = encodeURIComponent(p.externalAccountNumber);
  return {
    import_supplier: p.importSupplier,
    external_account_number: p.externalAccountNumber,
    workflow_id: p.workflowId,
    record_url: `/api/imports/${s}/${e}`,
    api_status_path: `/v2/data-import/accounts/${s}/${e}/`,
    temporal_url: `${temporal.uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(temporal.namespace)}/workflows/${encodeURIComponent(p.workflowId)}`,
  };
}

export function affectedItem(a: AffectedImport, temporal: TemporalLinks) {
  return { ...importLinks(a, temporal), status: a.status, modified_at: a.modifiedAt.toISOString() };
}

/** The status record without anything that may carry personal data (error details quote payload values). */
export function importRecord(p: ImportProcess, temporal: TemporalLinks): ImportRecord {
  return {
    ...importLinks(p, temporal),
    status: p.status,
    run: p.run,
    is_dry_run: p.isDryRun,
    kraken_identifier: p.status === 'PROCESSED' ? p.krakenIdentifier : null,
    current_step: p.currentStep,
    created_at: p.createdAt,
    modified_at: p.modifiedAt,
    latest_event: { event: p.latestEvent.event, occurred_at: p.latestEvent.occurred_at, error_code: p.latestEvent.data?.code ?? null },
    latest_error: p.latestError ? { code: p.latestError.code, domain: p.latestError.domain } : null,
  };
}

/** The progress of a tranche: its book's account numbers of one supplier, counted by import status. */
export async function buildTranche(db: Knex, supplier: string, numbers: readonly string[]): Promise<Tranche> {
  const { byStatus, notStarted, accounts } = await trancheCounts(db, new Map([[supplier, numbers]]));
  const processed = byStatus.PROCESSED ?? 0;
  return {
    import_supplier: supplier,
    accounts,
    by_status: byStatus,
    not_started: notStarted,
    processed_share: accounts ? processed / accounts : 0,
    remaining: notStarted + (byStatus.PENDING ?? 0) + (byStatus.IN_PROGRESS ?? 0),
  };
}
