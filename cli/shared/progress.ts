import cliProgress from 'cli-progress';
import { clock, type OutageView } from './availability';
import { phaseText, type Phase } from './phases';

/**
 * Live progress on stderr: a cli-progress bar (counts per status, accounts/s, ETA) when stderr
 * is a terminal; otherwise (cron, CI, `2> file`) one plain line every PLAIN_EVERY_MS.
 */
export interface ProgressSource {
  /** Records in the input (null while unknown). */
  total(): number | null;
  /** Records with a final outcome so far (this run and skipped ones). */
  done(): number;
  counts(): Record<string, number>;
  /** Accounts submitted and being followed. */
  following(): number;
  /** The API outage the run is waiting out, if any. */
  outage(): OutageView | null;
  /**
   * The phases of the run, running or ended (cli/shared/phases.ts): when given, the progress names
   * each one running with its own count, rate and ETA instead of one count, rate and ETA for the
   * whole run, and (plain) says when each one ends, with its count and time.
   */
  phases?(): Phase[];
}

/** "reading the book 3000/5000 records, 2000/s, ETA 1 s · digests …", or what is left to do. */
function phasesText(phases: Phase[]): string {
  return phases.length === 0 ? 'finishing (writing the report)' : phases.map((p) => phaseText(p)).join(' · ');
}

export interface Progress {
  stop(): void;
}

const PLAIN_EVERY_MS = 5_000;
const BAR_EVERY_MS = 250;

function statusText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s} ${n}`)
    .join(' · ');
}

/** "API unavailable since 12:01:03 (ECONNREFUSED) — retrying in 8 s", or '' while it answers. */
export function outageText(o: OutageView | null, now = Date.now()): string {
  if (!o) return '';
  const next = o.nextProbeAt === null ? 'retrying now' : `retrying in ${Math.max(0, Math.ceil((o.nextProbeAt - now) / 1000))} s`;
  return `API unavailable since ${clock(o.since)} (${o.reason}) — ${next}`;
}

function withOutage(source: ProgressSource, text: string): string {
  const o = outageText(source.outage());
  return o ? `${o} | ${text}` : text;
}

export function startProgress(kind: 'auto' | 'plain' | 'none', source: ProgressSource, log: (line: string) => void): Progress {
  if (kind === 'none') return { stop() {} };
  const started = Date.now();
  const rate = () => {
    const s = (Date.now() - started) / 1000;
    return s > 0 ? Math.round((source.done() / s) * 10) / 10 : 0;
  };
  const allPhases = source.phases?.bind(source);
  const phases = allPhases && (() => allPhases().filter((p) => p.endedAt === null));
  if (phases && kind === 'auto' && process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: '{bar} {phases} | {statuses}', hideCursor: true, fps: 4 },
      cliProgress.Presets.shades_classic,
    );
    const update = () => {
      const active = phases();
      const main = active[active.length - 1];
      bar.setTotal(main?.total ?? main?.done ?? 0);
      bar.update(main?.done ?? 0, { phases: phasesText(active), statuses: withOutage(source, statusText(source.counts())) });
    };
    bar.start(0, 0, { phases: '', statuses: '' });
    const timer = setInterval(update, BAR_EVERY_MS);
    return {
      stop() {
        clearInterval(timer);
        update();
        bar.stop();
      },
    };
  }
  if (allPhases && phases) {
    const timer = setInterval(() => log(`progress: ${phasesText(phases())} | ${withOutage(source, statusText(source.counts()))}`), PLAIN_EVERY_MS);
    timer.unref();
    // Each phase's end, as it happens: a short run says what it did even between two lines.
    const told = new Set<string>();
    const tellEnded = () => {
      for (const p of allPhases()) {
        if (p.endedAt === null || told.has(p.name)) continue;
        told.add(p.name);
        log(`phase done: ${p.name}, ${p.done} ${p.unit} in ${((p.endedAt - p.startedAt) / 1000).toFixed(1)} s`);
      }
    };
    const watch = setInterval(tellEnded, BAR_EVERY_MS);
    watch.unref();
    return {
      stop() {
        clearInterval(timer);
        clearInterval(watch);
        tellEnded();
      },
    };
  }
  if (kind === 'auto' && process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: '{bar} {value}/{total} | {rate}/s | ETA {eta_formatted} | following {following} | {statuses}',
        hideCursor: true,
        etaBuffer: 200,
        fps: 4,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(source.total() ?? 0, 0, { rate: 0, following: 0, statuses: '' });
    const timer = setInterval(() => {
      bar.setTotal(source.total() ?? 0);
      bar.update(source.done(), { rate: rate(), following: source.following(), statuses: withOutage(source, statusText(source.counts())) });
    }, BAR_EVERY_MS);
    return {
      stop() {
        clearInterval(timer);
        bar.update(source.done(), { rate: rate(), following: source.following(), statuses: withOutage(source, statusText(source.counts())) });
        bar.stop();
      },
    };
  }
  const line = () => {
    const total = source.total();
    const done = source.done();
    const r = rate();
    const eta = total !== null && r > 0 ? ` ETA ${Math.round((total - done) / r)} s` : '';
    log(`progress: ${done}/${total ?? '?'} done, ${r}/s,${eta} following ${source.following()} | ${withOutage(source, statusText(source.counts()))}`);
  };
  const timer = setInterval(line, PLAIN_EVERY_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
