import type { QueuePolicy } from '../db/stores/digestQueue';
export { isDatabaseOutage } from '../db/outage';

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


