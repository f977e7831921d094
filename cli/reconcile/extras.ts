/**
 * The supplier's accounts outside the book (`--extras`; docs/bulk-migration.md, "Tranches"), asked
 * in bulk, never one request per account: the totals of each supplier of the book in one request
 * each, then, with `--extras list`, the listing of its imported accounts, 10,000 a page.
 */
import type { ApiClient } from '../shared/api';
import type { Phases } from '../shared/phases';
import { unexpected } from './errors';
import type { KeySet } from './keySet';
import type { AccountResult } from './state';
import { addTotals, emptyTotals, type Totals } from './totals';

/** Page size of the listing of imported accounts. */
const LISTING_PAGE = 10_000;

export interface OutsideContext {
  api: Pick<ApiClient, 'call'>;
  phases: Phases;
  /** Counted here: the totals and listing requests. */
  requests: { totals: number; listing: number };
  /** Every account key of the book (supplier NUL external). */
  bookKeys: KeySet;
  /** Per supplier of the book, the totals of its book accounts found on the platform. */
  foundBySupplier: ReadonlyMap<string, Totals>;
}

/** What is known of the accounts outside the book; what was learnt stays when a step is interrupted. */
export class OutsideTheBook {
  /** With --extras list: each imported account of a supplier of the book that is not in the book. */
  readonly extras: AccountResult[] = [];
  /** Suppliers whose listing the API does not offer (404). */
  readonly listingUnavailable: string[] = [];
  /** Suppliers whose totals the API does not offer (404, 405) or cannot name (over 64 characters). */
  readonly totalsUnavailable: string[] = [];
  /** The sum of the suppliers' totals, or null when no supplier's was had. */
  supplierTotalsSum: Totals | null = null;
  /** How many of the suppliers' imported accounts are not in the book, or null when not known. */
  outside: number | null = null;

  constructor(private readonly ctx: OutsideContext) {}

  /** One totals request per supplier (`suppliers` sorted): the suppliers' totals and how many accounts are outside the book. */
  async askTotals(suppliers: readonly string[]): Promise<void> {
    const { api, phases, requests, foundBySupplier } = this.ctx;
    const totalsPhase = phases.start('totals', 'suppliers', suppliers.length);
    let sum = emptyTotals();
    let beyond = 0;
    for (const supplier of suppliers) {
      if (supplier.length > 64) {
        this.totalsUnavailable.push(supplier);
        totalsPhase.done++;
        continue;
      }
      requests.totals++;
      const res = await api.call('POST', '/v2/data-import/accounts/totals/', { import_supplier: supplier });
      totalsPhase.done++;
      if (res.status === 404 || res.status === 405) {
        this.totalsUnavailable.push(supplier);
        continue;
      }
      if (res.status !== 200) throw unexpected('POST /v2/data-import/accounts/totals/', res);
      const t = totalsOf(res.body);
      sum = addTotals(sum, t);
      beyond += Math.max(0, t.accounts - (foundBySupplier.get(supplier)?.accounts ?? 0));
    }
    phases.end('totals');
    if (this.totalsUnavailable.length < suppliers.length) {
      this.supplierTotalsSum = sum;
      this.outside = beyond;
    }
  }

  /** Lists each supplier's imported accounts (`suppliers` sorted), paged, into `extras`: those not in the book. */
  async list(suppliers: readonly string[]): Promise<void> {
    const { api, phases, requests, bookKeys } = this.ctx;
    const listing = phases.start('extras', 'accounts', this.outside);
    for (const supplier of suppliers) {
      let next: string | null = `/v1/data-import/imported-account-import-processes/${encodeURIComponent(supplier)}/?limit=${LISTING_PAGE}`;
      while (next !== null) {
        requests.listing++;
        const res = await api.call('GET', next);
        if (res.status === 404) {
          this.listingUnavailable.push(supplier);
          break;
        }
        if (res.status !== 200) throw unexpected(`GET ${next}`, res);
        for (const item of res.body as { external_account_number: string; kraken_account_number: string | null }[]) {
          if (bookKeys.has(`${supplier}\u0000${item.external_account_number}`)) continue;
          this.extras.push({ import_supplier: supplier, external_account_number: item.external_account_number, where: null, class: 'extra', status: 'PROCESSED', kraken_identifier: item.kraken_account_number ?? null, error_code: null });
          listing.done++;
        }
        next = nextLink(res.headers.link);
      }
    }
    phases.end('extras');
  }
}

/** The totals operation's answer as Totals (a count that is not a number counts 0). */
function totalsOf(body: unknown): Totals {
  const b = (body ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const d = (v: unknown) => (typeof v === 'string' ? v : '0');
  return { accounts: n(b.accounts), customers: n(b.customers), meter_points: n(b.meter_points), meters: n(b.meters), registers: n(b.registers), ledger_balances: d(b.ledger_balances), debts: d(b.debts) };
}

/** The `rel="next"` target of a Link header, or null. */
export function nextLink(link: string | string[] | undefined): string | null {
  const v = Array.isArray(link) ? link.join(', ') : link;
  if (!v) return null;
  const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(v);
  return m ? m[1]! : null;
}
