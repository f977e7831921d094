/**
 * One worker's customer e-mail sender as its own process, for
 * test/integration/emailPoisonCrash.test.ts: sends the QUEUED e-mails of the accounts of ACCOUNTS
 * (comma-separated account numbers, in order) through SMTP_URL with the attempt bound and lease of
 * MAX_ATTEMPTS / LEASE_MS, prints each account's result and exits 0. Rendering the e-mail of a
 * customer named POISON_NAME kills the process (SIGKILL, as the kernel's OOM killer or V8 out of
 * memory end a worker: no catch, no cleanup).
 */
import pino from 'pino';
import { createDb } from '../../db/knex';
import { deliverAccountEmails } from '../../emails/delivery';
import { createMailTransport } from '../../emails/transport';
import { loadConfig } from '../../lib/config';
import { PoisonRenderer } from './emailQueue';

async function main() {
  const env = process.env;
  const db = createDb(env.DATABASE_URL!, 2);
  const email = loadConfig({ APP_ENV: 'test', SMTP_URL: env.SMTP_URL, SMTP_REQUIRE_TLS: 'false', SMTP_TIMEOUT_MS: '3000' }).email;
  const renderer = new PoisonRenderer((c) => {
    if (c.customer.givenName === env.POISON_NAME) process.kill(process.pid, 'SIGKILL');
  });
  const transport = createMailTransport(email);
  const policy = { maxAttempts: Number(env.MAX_ATTEMPTS), leaseMs: Number(env.LEASE_MS) };
  for (const account of env.ACCOUNTS!.split(',')) {
    const r = await deliverAccountEmails({ db, transport, renderer, smtpTimeoutMs: 3000, subjectPrefix: 'crash', log: pino({ level: 'silent' }), policy }, account);
    process.stdout.write(`${JSON.stringify({ account, ...r })}\n`);
  }
  transport.close();
  await db.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
