import fs from 'node:fs';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Config } from '../lib/config';
import type { Readable } from 'node:stream';
import { confirmedEnd } from './confirmedEnd';

export type MailTransport = Transporter;

/**
 * The relay of SMTP_URL (smtp:// with STARTTLS required unless SMTP_REQUIRE_TLS=false — allowed
 * for a relay on loopback only, lib/config.ts —, smtps:// for implicit TLS, credentials in the
 * URL), its certificate checked against SMTP_TLS_CA when set, else the system's CAs. One connection per message, not a pool: a pool queues messages behind its busy
 * connections and lets them out in bursts, which would undo the even pace of rate.ts (measured:
 * 15 messages in one second at a rate of 10 with a pool of 3).
 */
export function createMailTransport(c: Config['email']): MailTransport {
  const u = new URL(c.smtpUrl);
  const transport = nodemailer.createTransport({
    host: u.hostname,
    port: u.port ? Number(u.port) : u.protocol === 'smtps:' ? 465 : 587,
    secure: u.protocol === 'smtps:',
    requireTLS: c.smtpRequireTls,
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    tls: { rejectUnauthorized: c.smtpTlsRejectUnauthorized, ...(c.smtpTlsCa && { ca: fs.readFileSync(c.smtpTlsCa) }) },
    connectionTimeout: c.smtpTimeoutMs,
    greetingTimeout: c.smtpTimeoutMs,
    socketTimeout: c.smtpTimeoutMs,
    // nodemailer logs nothing of its own: addresses never reach a log this way.
    logger: false,
  });
  // A message sent with `confirmBeforeEnd` (emails/confirmedEnd.ts) ends only once it resolves.
  transport.use('stream', (mail, done) => {
    const confirm = (mail.data as ConfirmedMail).confirmBeforeEnd;
    // The message's last stage, the stream nodemailer pipes into DATA once the relay answered 354.
    if (confirm) mail.message.processFunc((input: Readable) => confirmedEnd(input, confirm));
    done();
  });
  return transport;
}

/** A message whose end (the `.` of DATA) waits for `confirmBeforeEnd`: a failure abandons the send before the relay takes it. */
export interface ConfirmedMail {
  confirmBeforeEnd?: () => Promise<void>;
}

export type SmtpVerdict = { kind: 'bounce' | 'temporary'; code: number | null; response: string };

/**
 * A permanent answer about the recipient or the message (5xx to RCPT TO or DATA) is a bounce;
 * anything else — 4xx, a refused or dropped connection, a timeout, a 5xx to MAIL FROM or AUTH
 * (the relay's or our configuration, which an operator can fix) — is retried with backoff.
 */
export function classifySmtpError(err: unknown): SmtpVerdict {
  const e = (err ?? {}) as { responseCode?: number; command?: string; response?: string; code?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const response = e.response ?? `${e.code ?? 'ERROR'}: ${e.message ?? String(err)}`;
  const command = (e.command ?? '').toUpperCase();
  const aboutMessage = command.startsWith('RCPT') || command === 'DATA' || e.code === 'EENVELOPE' || e.code === 'EMESSAGE';
  if (code !== null && code >= 500 && code < 600 && aboutMessage && !command.startsWith('MAIL') && !command.startsWith('AUTH')) {
    return { kind: 'bounce', code, response };
  }
  return { kind: 'temporary', code, response };
}
