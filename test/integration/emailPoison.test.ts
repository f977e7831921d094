/**
 * A poison e-mail of the customer e-mail sender (issue 47, item 4): an e-mail the sender cannot
 * handle (here a template that throws on this customer's data) used to throw out of the account's
 * delivery at that e-mail, so no e-mail after it in the account was ever sent (the activity's
 * retries ran the same e-mail first each time, then every QUEUED e-mail of the account became
 * FAILED). Now its attempt is recorded before the work (queue 'email' of queue_item_attempts), it
 * fails alone and is set aside after its attempts with its reason, counted and named, while every
 * other e-mail is sent; an SMTP outage counts against no e-mail.
 */
import net from 'node:net';
import { deliverAccountEmails, type DeliveryDeps } from '../../emails/delivery';
import { createMailTransport } from '../../emails/transport';
import { listAllSetAside, setAsideCounts } from '../../maintenance/setAside';
import { loadConfig } from '../../lib/config';
import { createMetrics } from '../../lib/metrics';
import { createTestDatabase, TestDatabase } from '../support/db';
import { emailSuppliers, PoisonRenderer, queuedAccount } from '../support/emailQueue';
import { startSmtpSink, SmtpSink } from '../support/smtpSink';
import { silentLog } from '../support/stack';
import { runCli } from '../unit/cli/runCli';

jest.setTimeout(60_000);

let t: TestDatabase;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await createTestDatabase();
  await emailSuppliers(t.db, ['MAIL_A', 'MAIL_B', 'MAIL_C']);
});
afterAll(async () => {
  await t?.drop();
  await sink?.close();
});

const emailConfig = (smtpUrl: string) => loadConfig({ APP_ENV: 'test', SMTP_URL: smtpUrl, SMTP_REQUIRE_TLS: 'false', SMTP_TIMEOUT_MS: '3000' }).email;
const policy = { maxAttempts: 3, leaseMs: 0 };
const emailRow = (email: string) => t.db('customer_email_queue').where({ email }).first();
const received = (to: string) => sink.received.filter((m) => m.to.includes(to)).length;

function sender(renderer: PoisonRenderer, smtpUrl: string, metrics?: DeliveryDeps['metrics']): DeliveryDeps {
  return { db: t.db, transport: createMailTransport(emailConfig(smtpUrl)), renderer, smtpTimeoutMs: 3000, subjectPrefix: 'poison', log: silentLog, policy, metrics };
}

/** A port nothing listens on: the relay is down (connection refused). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('the customer e-mail sender with an e-mail it cannot handle', () => {
  it('sets the poison e-mail aside after its attempts while the other e-mails of its account and of other accounts are sent', async () => {
    const a = await queuedAccount(t.db, 'MAIL_A', 'A-1', [
      { givenName: 'Poison', email: 'poison-a@example.org' },
      { givenName: 'Ann', email: 'ann-a@example.org' },
    ]);
    const b = await queuedAccount(t.db, 'MAIL_B', 'B-1', [{ givenName: 'Bob', email: 'bob-b@example.org' }]);
    const renderer = new PoisonRenderer((c) => {
      if (c.customer.givenName === 'Poison') throw new Error('template helper failed on this customer');
    });
    const metrics = createMetrics('test');
    const deps = sender(renderer, sink.url, metrics);

    expect(await deliverAccountEmails(deps, a)).toMatchObject({ sent: 1, failed: 1, setAside: 0 });
    expect(received('ann-a@example.org')).toBe(1);
    expect(await deliverAccountEmails(deps, b)).toMatchObject({ sent: 1, failed: 0, setAside: 0 });
    expect(received('bob-b@example.org')).toBe(1);
    expect(await deliverAccountEmails(deps, a)).toMatchObject({ sent: 0, failed: 1, setAside: 0 });
    expect((await emailRow('poison-a@example.org')).status).toBe('QUEUED');
    expect(await deliverAccountEmails(deps, a)).toMatchObject({ sent: 0, failed: 1, setAside: 1 });
    // Set aside: FAILED (post-import reports it), taken by no sender, named and counted.
    const poison = await emailRow('poison-a@example.org');
    expect(poison.status).toBe('FAILED');
    expect(await deliverAccountEmails(deps, a)).toMatchObject({ sent: 0, failed: 0, setAside: 0 });
    expect(received('poison-a@example.org')).toBe(0);
    const [item] = await listAllSetAside(t.db, { queue: 'email' });
    expect(item).toMatchObject({ queue: 'email', id: Number(poison.id), item: `migration_welcome of account ${a}`, supplier: 'MAIL_A', externalAccountNumber: 'A-1', attempts: 3 });
    expect(item!.reason).toMatch(/template helper failed on this customer/);
    expect((await setAsideCounts(t.db)).email).toBe(1);
    expect((await metrics.queueItemFailures.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'email' }, value: 3 })]);
    expect((await metrics.queueItemsSetAside.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'email' }, value: 1 })]);
    const env = { APP_ENV: 'test', DATABASE_URL: t.url, SMTP_URL: sink.url, SMTP_REQUIRE_TLS: 'false' };
    const listed = await runCli(['set-aside', 'list', '--queue', 'email'], env);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout).toContain(`migration_welcome of account ${a}`);

    // The operator's retry, then the resend (the CLI renders with the service's own templates: the fix).
    expect(await runCli(['set-aside', 'retry', 'email', String(poison.id)], env)).toMatchObject({ code: 0, stdout: expect.stringContaining(`put back on the email queue: ${poison.id}\n`) });
    const resent = await runCli(['emails', 'resend', '--supplier', 'MAIL_A', '--account', 'A-1', '--json'], env);
    expect(resent.code).toBe(0);
    expect(JSON.parse(resent.stdout)).toEqual({ requeued: 1, sent: 1, bounced: 0, deferred: 0, failed: 0 });
    expect(received('poison-a@example.org')).toBe(1);
    expect((await emailRow('poison-a@example.org')).status).toBe('SENT');
    expect(await t.db('queue_item_attempts').where({ queue: 'email' })).toEqual([]);
  });

  it('counts an SMTP outage against no e-mail: nothing is set aside however long it lasts, and every e-mail goes once the relay is back', async () => {
    const c = await queuedAccount(t.db, 'MAIL_C', 'C-1', [
      { givenName: 'Once', email: 'once-c@example.org' },
      { givenName: 'Carl', email: 'carl-c@example.org' },
    ]);
    // One failure of its own first (its attempt counts), then the relay goes away.
    let failures = 1;
    const renderer = new PoisonRenderer((ctx) => {
      if (ctx.customer.givenName === 'Once' && failures-- > 0) throw new Error('a failure of this e-mail, once');
    });
    const down = sender(renderer, `smtp://127.0.0.1:${await closedPort()}`);
    expect(await deliverAccountEmails(down, c)).toMatchObject({ sent: 0, failed: 1, deferred: 1 });
    for (let pass = 0; pass < 5; pass++) expect(await deliverAccountEmails(down, c)).toMatchObject({ sent: 0, failed: 0, deferred: 2, setAside: 0 });
    const attempts = await t.db('queue_item_attempts').where({ queue: 'email' }).select('item', 'attempts', 'set_aside_at');
    expect(attempts).toEqual([{ item: String((await emailRow('once-c@example.org')).id), attempts: 1, set_aside_at: null }]);
    expect((await setAsideCounts(t.db)).email).toBe(0);
    expect((await emailRow('carl-c@example.org')).last_smtp_response).toMatch(/ECONNREFUSED/);

    expect(await deliverAccountEmails(sender(renderer, sink.url), c)).toMatchObject({ sent: 2, failed: 0, deferred: 0, setAside: 0 });
    expect(received('once-c@example.org')).toBe(1);
    expect(received('carl-c@example.org')).toBe(1);
    expect(await t.db('queue_item_attempts').where({ queue: 'email' })).toEqual([]);
  });
});
