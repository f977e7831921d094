import { Readable } from 'node:stream';
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

/**
 * The message as the sender reads it, whose end waits for `confirm`; when confirm fails, the stream
 * fails instead of ending. Given to nodemailer as the message's last stage (`processFunc`: the
 * stream it pipes into DATA after the relay's 354).
 *
 * `confirm` runs only once the sender has read the whole message and asks for more — its end, the
 * `.`, is next — not once the message has been written: a message smaller than the streams'
 * buffers is written in full while MAIL FROM and RCPT TO are still being answered, and a check at
 * that moment (a transform's `flush`, before) found alive a transaction that died a moment later,
 * and the relay took a message that could not be recorded (one copy too many in
 * customerEmails.test.ts at load ~9, where the session ends at MAIL FROM).
 */
export function confirmedEnd(input: Readable, confirm: () => Promise<void>): Readable {
  let inputEnded = false;
  let confirming = false;
  const output = new Readable({
    read() {
      input.resume();
      if (!inputEnded) return;
      if (this.readableLength > 0 || this.readableFlowing !== true) {
        // Everything is written but not yet read: a zero-length push ends this read without data,
        // so the next read, once the sender has taken the rest, comes here again.
        this.push(Buffer.alloc(0));
        return;
      }
      if (confirming) return;
      confirming = true;
      confirm().then(
        () => this.push(null),
        (err: unknown) => this.destroy(err instanceof SessionNotConfirmedError ? err : new SessionNotConfirmedError(err)),
      );
    },
    destroy(err, cb) {
      if (!inputEnded) input.destroy();
      cb(err);
    },
  });
  input.on('data', (chunk: Buffer) => {
    if (!output.push(chunk)) input.pause();
  });
  input.once('end', () => {
    inputEnded = true;
    // Ends a read left waiting for data, so that a reader already waiting comes back to read().
    output.push(Buffer.alloc(0));
  });
  input.once('error', (err) => output.destroy(err));
  return output;
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
