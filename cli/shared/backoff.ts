/** Waiting between retries. */

export class AbortedError extends Error {
  constructor() {
    super('aborted');
  }
}

/** Sleeps `ms`, or rejects with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortedError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Exponential backoff with full jitter (a random wait up to base·2^attempt, capped): many clients
 * retrying after the same outage do not come back in step.
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** Longest Retry-After honoured: a server asking for more is asked again after this. */
const MAX_RETRY_AFTER_MS = 120_000;

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Math.min(Number(v.trim()) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}
