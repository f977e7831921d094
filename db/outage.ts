/**
 * Whether a failed statement says PostgreSQL was not there (or ended the session): an outage, not
 * the fault of the item a shared job was working on (emails/delivery.ts, maintenance/retention.ts).
 */

/** Node's and PostgreSQL's codes of a database that could not be reached or ended the session: not the item's fault. */
const DATABASE_OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '25P03', '40001', '40P01', '53300']);

/** Whether a failed attempt says PostgreSQL was not there (or ended the session), rather than failing on the item. */
export function isDatabaseOutage(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: string; cause?: unknown; message?: string } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (DATABASE_OUTAGE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (e.name === 'KnexTimeoutError') return true;
    if (typeof e.message === 'string' && /Connection terminated|connection is closed|terminating connection/i.test(e.message)) return true;
  }
  return false;
}
