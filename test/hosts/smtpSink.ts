/**
 * The SMTP sink host of the harness (test/hosts/run.ts): a real SMTP server (smtp-server) that
 * accepts every message, and a small HTTP listener that lists what it accepted
 * (`GET /messages`: [{ messageId, to, at }]) so the checks count deliveries and duplicates by
 * Message-ID. Started inside the sink's namespace: `tsx test/hosts/smtpSink.ts <ip> <smtp port> <http port>`.
 */
import http from 'node:http';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

const [ip = '127.0.0.1', smtpPort = '2525', httpPort = '8025'] = process.argv.slice(2);
const received: { messageId: string; to: string[]; at: number }[] = [];

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  // A sender cut off mid-conversation must not hold the sink's sockets for ever.
  socketTimeout: 30_000,
  onData(stream, session, cb) {
    simpleParser(stream)
      .then((m) => {
        received.push({ messageId: m.messageId ?? '', to: session.envelope.rcptTo.map((r) => r.address), at: Date.now() });
        cb();
      })
      .catch((err: Error) => cb(err));
  },
});
smtp.listen(Number(smtpPort), ip);

http
  .createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(req.url === '/messages' ? received : { count: received.length }));
  })
  .listen(Number(httpPort), ip);
process.stdout.write(`smtp sink on ${ip}:${smtpPort}, messages on http://${ip}:${httpPort}/messages\n`);
