import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

/** One message the sink accepted, parsed. */
export interface ReceivedMail {
  /** Date.now() when the message's DATA was complete. */
  at: number;
  /** Date.now() at its MAIL FROM: the start of the sender's transaction, closest to when it chose to send. */
  mailFromAt: number;
  to: string[];
  messageId: string;
  subject: string;
  html: string;
  text: string;
  headers: Map<string, unknown>;
}

export interface SmtpSink {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** RCPT TO answers per address, in order (how often each was tried). */
  rcptSeen: Map<string, number>;
  /** Decides the RCPT TO answer: return [code, text] to refuse, undefined to accept. */
  rcpt: (address: string, attempt: number) => [number, string] | undefined;
  /** Runs before the message is accepted (after it was stored): a test may kill the sender here. */
  beforeAccept: (mail: ReceivedMail) => Promise<void>;
  /** Runs at MAIL FROM, before the answer: mid-conversation, before the message's DATA and its `.`. */
  atMailFrom: (from: string) => Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server in-process (smtp-server, by nodemailer's authors): accepts every message on
 * a free port, or refuses recipients as the test says (550 permanent, 451 temporary).
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const sink: SmtpSink = {
    port: 0,
    url: '',
    received: [],
    rcptSeen: new Map(),
    rcpt: () => undefined,
    beforeAccept: async () => undefined,
    atMailFrom: async () => undefined,
    close: async () => undefined,
  };
  const mailFromAt = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onMailFrom(address, session, cb) {
      mailFromAt.set(session.id, Date.now());
      sink.atMailFrom(address.address).then(() => cb(), (err: Error) => cb(err));
    },
    onRcptTo(address, _session, cb) {
      const n = (sink.rcptSeen.get(address.address) ?? 0) + 1;
      sink.rcptSeen.set(address.address, n);
      const refusal = sink.rcpt(address.address, n);
      if (!refusal) return cb();
      const err = new Error(refusal[1]) as Error & { responseCode: number };
      err.responseCode = refusal[0];
      cb(err);
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then(async (m) => {
          const mail: ReceivedMail = {
            at: Date.now(),
            mailFromAt: mailFromAt.get(session.id) ?? Date.now(),
            to: session.envelope.rcptTo.map((r) => r.address),
            messageId: m.messageId ?? '',
            subject: m.subject ?? '',
            html: typeof m.html === 'string' ? m.html : '',
            text: m.text ?? '',
            headers: m.headers,
          };
          sink.received.push(mail);
          await sink.beforeAccept(mail);
          cb();
        })
        .catch((err: Error) => cb(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.server.address();
  sink.port = typeof addr === 'object' && addr ? addr.port : 0;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}
