import { startStack, silentLog, Stack, eventually } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { startSmtpSink, SmtpSink } from '../support/smtpSink';
import { startDelayProxy, DelayProxy } from '../support/delayProxy';
import { createDb, Db } from '../../db/knex';
import { updateSupplier } from '../../suppliers/store';
import { findAccountByExternal } from '../../db/stores/accountStore';
import { queueEmails } from '../../emails/store';
import { deliverAccountEmails } from '../../emails/delivery';
import { createMailer } from '../../emails/mailer';
import { loadConfig } from '../../lib/config';

/**
 * The pace of customer e-mails when claiming one (a pool connection, the row's lock, the
 * customer's row) takes longer than the lateness a send may have after its slot (issue 38: imports
 * stalled in sending_customer_emails for over 60 s on a loaded machine, with no fault). PostgreSQL
 * is reached through a proxy that delays every chunk (each round trip ≥ 2 × DELAY_MS): before the
 * fix, every claim finished after its slot's tolerance, was given up and a new slot taken, for ever.
 */
const DELAY_MS = 60;
let s: Stack;
let sink: SmtpSink;
let proxy: DelayProxy;
let slowDb: Db;

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startStack({ env: { SMTP_URL: sink.url }, relay: false });
  const u = new URL(s.t.url);
  proxy = await startDelayProxy(u.hostname, Number(u.port || 5432), DELAY_MS);
  u.host = proxy.address;
  slowDb = createDb(u.toString(), 2);
}, 60_000);

afterAll(async () => {
  await slowDb?.destroy();
  await proxy?.close();
  await s?.stop();
  await sink?.close();
});

it('sends every e-mail of an account when each claim takes longer than the lateness allowed after a slot, each once and at the rate', async () => {
  // Imported without e-mails (the stack's worker would send them), then queued for the sender here.
  const ext = s.ext('PACE');
  const account = uniqueAccount(ext);
  const r = await s.request().post('/v2/data-import/accounts/').send(account);
  expect(r.status).toBe(201);
  await eventually(async () => ((await s.t.db('import_processes').where({ external_account_number: ext }).first())?.current_step === 'done' ? true : undefined), 60_000, 200);
  const rate = 5;
  await updateSupplier(s.t.db, 'DEMO_ENERGY', { emailFromAddress: 'welcome@demo-energy.example', emailRatePerSecond: rate });
  const found = (await findAccountByExternal(s.t.db, 'DEMO_ENERGY', ext))!;
  const users = found.users.map((x, i) => ({ ...x, email: `pace-${i}-${ext}@example.org` }));
  expect(users.length).toBeGreaterThan(0);
  await queueEmails(s.t.db, { importSupplier: 'DEMO_ENERGY', externalAccountNumber: ext, accountNumber: found.accountNumber, template: 'migration_welcome', domain: 'demo-energy.example', users });

  const mail = createMailer(loadConfig({ ...process.env, APP_ENV: 'test', SMTP_URL: sink.url, SMTP_REQUIRE_TLS: 'false', DATABASE_URL: s.t.url }).email);
  const started = Date.now();
  const delivery = deliverAccountEmails({ db: slowDb, subjectPrefix: s.subjectPrefix, log: silentLog, ...mail }, found.accountNumber);
  try {
    const result = await Promise.race([delivery, new Promise<'stalled'>((resolve) => setTimeout(() => resolve('stalled'), 20_000).unref())]);
    expect(result).toEqual({ sent: users.length, bounced: 0, deferred: 0, lastDeferredCode: null, failed: 0, setAside: 0 });
  } finally {
    // A sender still looping (before the fix) stops on its pool's end.
    await slowDb.destroy();
    await delivery.catch(() => undefined);
    mail.transport.close();
  }
  const rows = await s.t.db('customer_email_queue').where({ account_number: found.accountNumber }).orderBy('id');
  expect(rows.map((x) => [x.status, x.attempts])).toEqual(users.map(() => ['SENT', 1]));
  const got = sink.received.filter((m) => rows.some((x) => x.message_id === m.messageId));
  expect(got).toHaveLength(users.length);
  // Still at the rate: no two sends closer than a slot apart (less a timer's jitter).
  const starts = got.map((m) => m.mailFromAt).sort((a, b) => a - b);
  for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(1000 / rate - 50);
  expect(starts[0]!).toBeGreaterThanOrEqual(started);
}, 90_000);
