import { Transform } from 'node:stream';
import type { Knex } from 'knex';
import { pingSession } from './store';

/**
 * The last line of defence of the e-mail's at-least-once window (docs/customer-emails.md "Crashes,
 * and the duplicate window that remains"): the message's end — the `.` that makes the relay take
 * it — waits until the send's own transaction has answered a query. An e-mail whose transaction
 * can no longer commit (its PostgreSQL primary killed, cut off or failed over mid-send) is never
 * completed at the relay: the stream fails, nodemailer drops the connection before the `.`, the
 * relay discards the unfinished message, and the e-mail stays QUEUED for its retry. What remains of
 * the window is the `.`, the relay's 250 and our COMMIT: two round trips, not the whole SMTP
 * conversation (issue 48: 11 and 15 duplicates of ~224 e-mails at a primary kill before).
 */

/** Thrown when the transaction did not answer in time: the send is abandoned before the `.`. */
export class SessionNotConfirmedError extends Error {
  constructor(cause: unknown) {
    super(`the send's transaction did not answer before the message's end: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SessionNotConfirmedError';
  }
}

/** A pass-through whose end waits for `confirm`; when confirm fails, the stream fails instead of ending. */
export function confirmedEnd(confirm: () => Promise<void>): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      cb(null, chunk);
    },
    flush(cb) {
      confirm().then(
        () => cb(),
        (err: unknown) => cb(err instanceof SessionNotConfirmedError ? err : new SessionNotConfirmedError(err)),
      );
    },
  });
}

/** `SELECT 1` on the transaction's connection, within `timeoutMs` (a silent primary answers nothing). */
export function transactionAnswers(trx: Knex.Transaction, timeoutMs: number): () => Promise<void> {
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        pingSession(trx),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      throw new SessionNotConfirmedError(err);
    } finally {
      clearTimeout(timer);
    }
  };
}
