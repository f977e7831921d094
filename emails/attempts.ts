import type { QueuePolicy } from '../db/stores/digestQueue';

/**
 * The customer e-mail sender's attempts (emails/delivery.ts) in the shared queue table
 * (db/stores/queueItems.ts, queue 'email'; issue 47, item 4): how many, how long one holds its
 * e-mail, and which failures are not the e-mail's.
 */

/**
 * How much longer than SMTP_TIMEOUT_MS a send's transaction may stay idle: a relay silent for
 * SMTP_TIMEOUT_MS fails the send anyway; one that trickles on for longer has its transaction
 * (and row lock) ended by the server, and the e-mail goes again under the same Message-ID — the
 * one duplicate no mail protocol closes (docs/customer-emails.md). A frozen worker's send holds
 * the e-mail's lock that long at most.
 */
export const SEND_IDLE_MARGIN_MS = 10_000;
/**
 * The most a sender claims an e-mail ahead of its slot (and so holds its transaction before the
 * send): well within SEND_IDLE_MARGIN_MS and the activity's heartbeat timeout (20 s).
 */
export const LEAD_MAX_MS = 5_000;

/**
 * Attempts at one e-mail before it is set aside, and how long an attempt holds it: the claim's
 * lead, the send (SMTP_TIMEOUT_MS at most while the relay is silent, the transaction's idle margin
 * beyond) and a margin. Another sender finding an e-mail attempted within the lease leaves it to
 * that attempt while a send holds the e-mail's row (it is counted deferred: the activity's retry
 * comes back to it), and takes it over at once when none does (that attempt's worker died).
 */
export function emailQueuePolicy(smtpTimeoutMs: number): QueuePolicy {
  return { maxAttempts: 3, leaseMs: LEAD_MAX_MS + smtpTimeoutMs + SEND_IDLE_MARGIN_MS + 5_000 };
}

/** Node's and PostgreSQL's codes of a database that could not be reached or ended the session: not the e-mail's fault. */
const DATABASE_OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '25P03', '40001', '40P01', '53300']);

/** Whether a failed attempt says PostgreSQL was not there (or ended the session), rather than failing on this e-mail. */
export function isDatabaseOutage(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: string; cause?: unknown; message?: string } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (DATABASE_OUTAGE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (e.name === 'KnexTimeoutError') return true;
    if (typeof e.message === 'string' && /Connection terminated|connection is closed|terminating connection/i.test(e.message)) return true;
  }
  return false;
}

