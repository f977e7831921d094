/**
 * The phases of a long command (`migrate`: reading the book, sending, following; `reconcile`:
 * reading the book, digests, mismatched accounts, totals, extras), each with what it counts, how
 * many of how many, its own rate and ETA while it runs, and how long it took once it ended: the
 * progress says what the command is doing now, and the summary where the time went (issue 40).
 */
export interface Phase {
  name: string;
  /** What `done` and `total` count: accounts, records, suppliers, pages. */
  unit: string;
  done: number;
  /** null while unknown. */
  total: number | null;
  startedAt: number;
  endedAt: number | null;
}

export interface PhaseTiming {
  phase: string;
  unit: string;
  count: number;
  ms: number;
}

export class Phases {
  private readonly list: Phase[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts the phase (again: the one started before, still counting). */
  start(name: string, unit: string, total: number | null = null): Phase {
    const known = this.list.find((p) => p.name === name);
    if (known) {
      known.endedAt = null;
      if (total !== null) known.total = total;
      return known;
    }
    const phase: Phase = { name, unit, done: 0, total, startedAt: this.now(), endedAt: null };
    this.list.push(phase);
    return phase;
  }

  get(name: string): Phase | undefined {
    return this.list.find((p) => p.name === name);
  }

  end(name: string): void {
    const p = this.get(name);
    if (p && p.endedAt === null) p.endedAt = this.now();
  }

  /** Ends every phase still running (the command stopped). */
  endAll(): void {
    for (const p of this.list) if (p.endedAt === null) p.endedAt = this.now();
  }

  /** Every phase, running or ended, in the order they started. */
  all(): Phase[] {
    return [...this.list];
  }

  /** The phases running now, in the order they started. */
  active(): Phase[] {
    return this.list.filter((p) => p.endedAt === null);
  }

  timings(): PhaseTiming[] {
    return this.list.map((p) => ({ phase: p.name, unit: p.unit, count: p.done, ms: (p.endedAt ?? this.now()) - p.startedAt }));
  }
}

/** Accounts (or whatever the phase counts) per second since the phase started. */
export function phaseRate(p: Phase, now = Date.now()): number {
  const s = ((p.endedAt ?? now) - p.startedAt) / 1000;
  return s > 0 ? p.done / s : 0;
}

/** "digests 3500/5000 accounts, 1400/s, ETA 2 s" (ETA from the phase's own rate; "?" while unknown). */
export function phaseText(p: Phase, now = Date.now()): string {
  const rate = phaseRate(p, now);
  const of = p.total === null ? `${p.done}` : `${p.done}/${p.total}`;
  const eta = p.total === null || rate <= 0 ? (p.total !== null && p.done >= p.total ? 'ETA 0 s' : 'ETA ?') : `ETA ${Math.max(0, Math.ceil((p.total - p.done) / rate))} s`;
  return `${p.name} ${of} ${p.unit}, ${rate >= 10 ? Math.round(rate) : Math.round(rate * 10) / 10}/s, ${eta}`;
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "reading the book 1000 records 0.4 s · digests 1000 accounts 0.9 s · totals 1 supplier 0.1 s". */
export function timingsText(t: readonly PhaseTiming[]): string {
  return t.map((x) => `${x.phase} ${x.count} ${x.unit} ${seconds(x.ms)}`).join(' · ');
}
