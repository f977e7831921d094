import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { HttpError } from '../errors';
import { type JsonLimits, JsonBoundsError, parseBounded } from '../../lib/jsonBounds';
import type { PayloadBudget } from '../../lib/payloadBudget';
import { principalOf } from '../principal';
import { requestSignal } from './timeout';

/**
 * Reads and parses a JSON request body, bounded by `limitBytes`. Answers 415 for another content
 * type, 413 past the limit (checked on Content-Length first, then while streaming), 413 for a
 * body past the JSON bounds (`json`: values, depth, members of one object; lib/jsonBounds.ts),
 * found by a scan of the text before anything is parsed, 400 parse_error for malformed JSON. The parsed value is `ctx.request.body` (any JSON value: the
 * routes decide what shape they accept).
 *
 * With a `budget` (the API's, api/router.ts), a body above its threshold (or of unknown length) is
 * read only when the budget has room for its Content-Length (else the limit), and holds it until
 * the request is answered: a parsed account takes several times its JSON, and the API runs with a
 * capped heap (lib/nodeOptions.ts), so many very large bodies at once wait instead of
 * exhausting it.
 *
 * The share is held by the caller's organisation (an organisation may hold half the budget, or one
 * body of any size: api/router.ts) and released whatever ends the request: the body read ends when
 * the request times out or the client leaves (the request's signal, http/middleware/timeout.ts) —
 * a slow sender is cut off there, its connection closed — and a request still waiting for room
 * leaves the queue then. A body that stalls is cut off sooner: every `stallMs` (BODY_STALL_MS) of
 * its read must bring STALL_WINDOW_BYTES or its end, else 503 request_timeout — a stalled upload
 * holds its share for seconds, not the whole request timeout (issue 47: one tenant's stalled
 * 10 MiB body held another's large and chunked bodies for 30 s).
 */
export function jsonBody(limitBytes: number, json: JsonLimits, opts: { optional?: boolean; budget?: PayloadBudget; stallMs?: number } = {}): Middleware {
  return async (ctx, next) => {
    const length = ctx.request.length;
    const hasBody = (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
    if (!hasBody) {
      if (opts.optional) return next();
      throw new HttpError('parse_error', 'A JSON request body is required.');
    }
    if (!ctx.is('application/json', '+json')) {
      throw new HttpError('unsupported_media_type', 'Send the body as application/json.');
    }
    if (length !== undefined && length > limitBytes) {
      throw new HttpError('payload_too_large', `The body exceeds ${limitBytes} bytes.`);
    }
    const signal = requestSignal(ctx);
    const handle = async (grow?: Grow) => {
      let text: string;
      try {
        text = await readBody(ctx.req, limitBytes, signal, opts.stallMs ?? DEFAULT_STALL_MS, grow);
      } catch (err) {
        // The rest of the body is not read: the connection ends with the answer.
        ctx.set('Connection', 'close');
        throw err;
      }
      let parsed: unknown;
      try {
        parsed = parseBounded(text, json);
      } catch (err) {
        if (err instanceof JsonBoundsError) throw new HttpError('payload_too_large', err.message);
        throw new HttpError('parse_error', `Malformed JSON: ${(err as Error).message}`);
      }
      ctx.request.body = parsed;
      return next();
    };
    const budget = opts.budget;
    if (!budget) return handle();
    const hold = { owner: principalOf(ctx)?.organisation, signal };
    if (length !== undefined) return budget.admit(length, () => handle(), hold);
    // A chunked body's size is unknown until read: it is read without the budget up to the inline
    // threshold (a small one, most of them, never waits behind large bodies, issue 47); past it,
    // the read pauses until the budget holds the limit for it, until the request is answered.
    let release: (() => void) | undefined;
    // Room granted after the request ended (a read error while waiting) is given back at once.
    let ended = false;
    const grow: Grow = {
      threshold: budget.inlineBytes,
      room: () =>
        new Promise<void>((granted, refused) => {
          const held = () => (ended ? Promise.resolve() : new Promise<void>((r) => { release = r; granted(); }));
          budget.hold(limitBytes, held, hold).catch(refused);
        }),
    };
    try {
      return await handle(grow);
    } finally {
      ended = true;
      release?.();
    }
  };
}

/** A body read that asks for room in the budget once it passes `threshold` bytes. */
interface Grow {
  threshold: number;
  room: () => Promise<void>;
}

/** Bytes a body must bring in each stall window (a sender slower than this per BODY_STALL_MS is cut off). */
export const STALL_WINDOW_BYTES = 64 * 1024;
const DEFAULT_STALL_MS = 3000;

/**
 * The body as text. Settles whatever happens: the whole body, more than `limit`, a read error, the
 * connection closed (before or while reading), or `signal` aborted (the request timed out, the
 * client left). Whoever gives up on the body answers with `Connection: close`, so the rest of a
 * slow sender's body is never read: the connection ends with the answer.
 */
function readBody(req: IncomingMessage, limit: number, signal: AbortSignal | undefined, stallMs: number, grow?: Grow): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    if (req.destroyed || req.readableAborted) {
      reject(new HttpError('parse_error', 'The connection closed before the body was read.'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let sinceCheck = 0;
    // While paused for room in the budget, the body is not stalled: we are not reading it.
    let waitingForRoom = false;
    const stall = setInterval(() => {
      if (!waitingForRoom && sinceCheck < STALL_WINDOW_BYTES) finish(new HttpError('request_timeout', `The body brought less than ${STALL_WINDOW_BYTES} bytes in ${stallMs} ms.`));
      sinceCheck = 0;
    }, stallMs);
    const finish = (err?: unknown, value?: string) => {
      if (done) return;
      done = true;
      clearInterval(stall);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      sinceCheck += chunk.length;
      if (size > limit) {
        // Stop reading: the client gets its 413 and the rest of the body is not buffered.
        req.pause();
        finish(new HttpError('payload_too_large', `The body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
      if (grow && size > grow.threshold) {
        const room = grow.room;
        grow = undefined;
        waitingForRoom = true;
        req.pause();
        room().then(
          () => {
            waitingForRoom = false;
            sinceCheck = STALL_WINDOW_BYTES;
            req.resume();
          },
          (err: unknown) => finish(err),
        );
      }
    };
    const onEnd = () => {
      // One chunk (most bodies) is used as it is; isUtf8 checks without decoding twice.
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      if (!isUtf8(buf)) finish(new HttpError('parse_error', 'The body is not valid UTF-8.'));
      else finish(undefined, buf.toString('utf8'));
    };
    const onError = (err: Error) => finish(new HttpError('parse_error', `Could not read the body: ${err.message}`));
    const onClose = () => finish(new HttpError('parse_error', 'The connection closed before the body was read.'));
    const onAbort = () => finish(signal!.reason);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The one object check of a parsed body: a JSON object (not an array, string, number or null), else 400 parse_error. */
export function assertObject(body: unknown): asserts body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError('parse_error', 'The body must be a JSON object.');
  }
}
