/**
 * The SMTP relay host of the harness (test/hosts/run.ts): a real SMTP server (smtp-server) that
 * speaks as a relay of the reference deployment must — STARTTLS offered with the harness CA's
 * certificate, AUTH required and only over TLS (so a message is taken only from a sender that has
 * the relay's credentials, over an encrypted link) — and a small HTTP listener for the harness's
 * checks that lists what it accepted (`GET /messages` with the run's bearer token:
 * [{ messageId, to, at }]) so the checks count deliveries and duplicates by Message-ID. Started
 * inside the relay's namespace: `tsx test/hosts/smtpSink.ts <ip> <smtp port> <http port>`, its
 * secrets in the environment (SINK_SMTP_USER, SINK_SMTP_PASSWORD, SINK_HTTP_TOKEN, SINK_TLS_CERT,
 * SINK_TLS_KEY), not on its command line.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

const [ip = '127.0.0.1', smtpPort = '2525', httpPort = '8025'] = process.argv.slice(2);
const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const user = need('SINK_SMTP_USER');
const password = need('SINK_SMTP_PASSWORD');
const token = need('SINK_HTTP_TOKEN');
const received: { messageId: string; to: string[]; at: number }[] = [];

const same = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

const smtp = new SMTPServer({
  key: fs.readFileSync(need('SINK_TLS_KEY')),
  cert: fs.readFileSync(need('SINK_TLS_CERT')),
  // AUTH before MAIL FROM, and AUTH only once STARTTLS has encrypted the session.
  authOptional: false,
  allowInsecureAuth: false,
  authMethods: ['PLAIN', 'LOGIN'],
  logger: false,
  // A sender cut off mid-conversation must not hold the sink's sockets for ever.
  socketTimeout: 30_000,
  onAuth(auth, _session, cb) {
    if (same(auth.username ?? '', user) && same(auth.password ?? '', password)) return cb(null, { user: auth.username });
    cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
  },
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
    if (!same(req.headers.authorization ?? '', `Bearer ${token}`)) {
      res.statusCode = 401;
      res.end('{"error":"unauthorized"}');
      return;
    }
    res.end(JSON.stringify(req.url === '/messages' ? received : { count: received.length }));
  })
  .listen(Number(httpPort), ip);
process.stdout.write(`smtp relay on ${ip}:${smtpPort} (STARTTLS, AUTH required), messages on http://${ip}:${httpPort}/messages\n`);
