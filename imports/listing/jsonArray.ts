import { Transform } from 'node:stream';

/** Text is handed on in chunks of about this size: one socket write per chunk, not per item. */
const CHUNK = 32 * 1024;

/**
 * An object stream → the text of one JSON array, item by item. Backpressure is the stream's own:
 * Koa pipes this into the response, so the database cursor is read only as fast as the client
 * reads, and at most a few chunks of text wait in memory.
 */
export function jsonArrayStream<T>(toItem: (row: T) => unknown): Transform {
  let text = '';
  let first = true;
  return new Transform({
    writableObjectMode: true,
    readableHighWaterMark: 2 * CHUNK,
    transform(row: T, _enc, done) {
      text += (first ? '[' : ',') + JSON.stringify(toItem(row));
      first = false;
      if (text.length < CHUNK) return done();
      const out = text;
      text = '';
      done(null, out);
    },
    flush(done) {
      done(null, first ? '[]' : `${text}]`);
    },
  });
}
