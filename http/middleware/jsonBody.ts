import { isUtf8 } from 'node:buffer';
import type { Middleware } from 'koa';
import { HttpError } from '../errors';
import type { PayloadBudget } from '../../lib/payloadBudget';

/**
 * Reads and parses a JSON request body, bounded by `limitBytes`. Answers 415 for another content
 * type, 413 past the limit (checked on Content-Length first, then while streaming), 400
 * parse_error for malformed JSON. The parsed value is `ctx.request.body` (any JSON value: the
 * routes decide what shape they accept).
 *
 * With a `budget` (the API's, api/extras.ts), a body above its threshold (or of unknown length) is
 * read only when the budget has room for its Content-Length (else the limit), and holds it until
 * the request is answered: a parsed account takes several times its JSON, and the API runs with a
 * capped heap (lib/nodeOptions.ts), so many very large bodies at once wait instead of
 * exhausting it.
 */
export function jsonBody(limitBytes: number, opts: { optional?: boolean; budget?: PayloadBudget } = {}): Middleware {
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
    const handle = async () => {
      const text = await readBody(ctx.req, limitBytes);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw new HttpError('parse_error', `Malformed JSON: ${(err as Error).message}`);
      }
      ctx.request.body = parsed;
      return next();
    };
    // A chunked body's size is unknown until read: it counts as the limit.
    return opts.budget ? opts.budget.admit(length ?? limitBytes, handle) : handle();
  };
}

function readBody(req: NodeJS.ReadableStream & { destroy?: () => void }, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: unknown, value?: string) => {
      if (done) return;
      done = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading: the client gets its 413 and the rest of the body is not buffered.
        req.pause();
        finish(new HttpError('payload_too_large', `The body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      // One chunk (most bodies) is used as it is; isUtf8 checks without decoding twice.
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      if (!isUtf8(buf)) finish(new HttpError('parse_error', 'The body is not valid UTF-8.'));
      else finish(undefined, buf.toString('utf8'));
    };
    const onError = (err: Error) => finish(new HttpError('parse_error', `Could not read the body: ${err.message}`));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The one object check of a parsed body: a JSON object (not an array, string, number or null), else 400 parse_error. */
export function assertObject(body: unknown): asserts body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError('parse_error', 'The body must be a JSON object.');
  }
}
