/**
 * emails/confirmedEnd.ts: the message's end waits for the send's transaction, checked once the
 * message has been read by the sender (after the relay's 354), not when it was written into the
 * stream (a small message is written in full while MAIL FROM and RCPT TO are still answered).
 */
import { PassThrough, Writable } from 'node:stream';
import { confirmedEnd, SessionNotConfirmedError } from '../../../emails/confirmedEnd';

const tick = () => new Promise((r) => setTimeout(r, 20));

function collector(): { sink: Writable; text: () => string; finished: Promise<void> } {
  const chunks: Buffer[] = [];
  const sink = new PassThrough();
  sink.on('data', (c: Buffer) => chunks.push(c));
  const finished = new Promise<void>((resolve) => sink.on('end', () => resolve()));
  return { sink, text: () => Buffer.concat(chunks).toString(), finished };
}

describe('confirmedEnd', () => {
  it('does not check the transaction while nobody reads the message, however small', async () => {
    let checks = 0;
    const input = new PassThrough();
    const stream = confirmedEnd(input, async () => void checks++);
    input.end('Subject: hello\r\n\r\nA small message.\r\n');
    await tick();
    await tick();
    expect(checks).toBe(0);
    expect(stream.readableEnded).toBe(false);
    // The sender starts reading (DATA answered 354): the check runs, then the message ends.
    const out = collector();
    stream.pipe(out.sink);
    await out.finished;
    expect(checks).toBe(1);
    expect(out.text()).toBe('Subject: hello\r\n\r\nA small message.\r\n');
  });

  it('checks once the message has been read, before its end, for a message larger than the buffers', async () => {
    const order: string[] = [];
    const input = new PassThrough();
    const stream = confirmedEnd(input, async () => {
      order.push(`check after ${received} bytes`);
    });
    let received = 0;
    const big = Buffer.alloc(200_000, 'x');
    const out = collector();
    out.sink.on('data', (c: Buffer) => (received += c.length));
    out.sink.on('end', () => order.push('end'));
    stream.pipe(out.sink);
    input.end(big);
    await out.finished;
    expect(order).toEqual(['check after 200000 bytes', 'end']);
  });

  it('fails the stream instead of ending it when the transaction does not answer', async () => {
    const input = new PassThrough();
    const stream = confirmedEnd(input, async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    input.end('Subject: hello\r\n\r\nbody\r\n');
    const failed = new Promise<Error>((resolve) => stream.on('error', resolve));
    let ended = false;
    stream.on('end', () => (ended = true));
    stream.resume();
    const err = await failed;
    expect(err).toBeInstanceOf(SessionNotConfirmedError);
    expect(err.message).toContain('Connection terminated unexpectedly');
    expect(ended).toBe(false);
  });

  it('passes an error of the message on, and stops reading the message when the sender goes away', async () => {
    const input = new PassThrough();
    const stream = confirmedEnd(input, async () => undefined);
    const failed = new Promise<Error>((resolve) => stream.on('error', resolve));
    input.destroy(new Error('template file vanished'));
    expect((await failed).message).toBe('template file vanished');
    const input2 = new PassThrough();
    const stream2 = confirmedEnd(input2, async () => undefined);
    input2.write('partial');
    stream2.destroy();
    await tick();
    expect(input2.destroyed).toBe(true);
  });
});
