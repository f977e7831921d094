import { Transform } from 'node:stream';

/**
 * An object stream → the text of one JSON array, item by item. Backpressure is the stream's own:
 * Koa pipes this into the response, so the database cursor is read only as fast as the client reads.
 */
export function jsonArrayStream<T>(toItem: (row: T) => unknown): Transform {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    // Buffer a few hundred rows' worth of text at most on the readable side.
    readableHighWaterMark: 64 * 1024,
    transform(row: T, _enc, done) {
      const text = JSON.stringify(toItem(row));
      done(null, first ? `[${text}` : `,${text}`);
      first = false;
    },
    flush(done) {
      done(null, first ? '[]' : ']');
    },
  });
}
