import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { NativeConnection, Worker } from '@temporalio/worker';
import { eventually, silentLog, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { testWorkflowBundle } from '../support/workflowBundle';
import { holdCrashWorker, type HeldCrashWorker } from '../support/crashWorkerProcess';
import { readStream } from '../support/stream';
import { startSmtpSink, SmtpSink } from '../support/smtpSink';
import { runCli } from '../unit/cli/runCli';
import { updateSupplier } from '../../suppliers/store';
import { createWorker, createWorkerActivities } from '../../worker/createWorker';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { createMailer } from '../../emails/mailer';
import { registerCustomerEmailGauge } from '../../emails/metrics';

/**
 * Customer e-mails on the real stack (PostgreSQL, NATS JetStream, Temporal) against a real SMTP
 * server in-process (smtp-server): delivery with the rendered content, skips, bounces, temporary
 * failures, the rate across two workers, a worker killed while sending, and the operator CLI.
 */
let s: Stack;
let sink: SmtpSink;
let templatesDir: string;
let crashWorker: HeldCrashWorker;

type Customer = Record<string, unknown>;

/** The example account with the given customer e-mail addresses (null: no address). */
function accountWith(ext: string, emails: (string | null)[]): Record<string, unknown> {
  const a = uniqueAccount(ext);
  const base = (a.customers as Customer[])[0]!;
  a.customers = emails.map((email, i) => {
    const c: Customer = { ...(a.customers as Customer[])[i % 2] ?? base };
    if (email) c.email = email;
    else delete c.email;
    return c;
  });
  return a;
}

async function importAccount(ext: string, emails: (string | null)[]): Promise<void> {
  const r = await s.request().post('/v2/data-import/accounts/').send(accountWith(ext, emails));
  expect(r.status).toBe(201);
}

/** Waits until post-import has finished (done, or failed follow-ups) and returns the import row. */
async function postImportFinished(ext: string, timeoutMs = 60_000): Promise<{ status: string; current_step: string; kraken_identifier: string }> {
  return eventually(async () => {
    const p = await s.t.db('import_processes').where({ external_account_number: ext }).first();
    return p && ['done', 'post_import_failed'].includes(p.current_step) ? p : undefined;
  }, timeoutMs, 200);
}

const emailsOf = (accountNumber: string) => s.t.db('customer_email_queue').where({ account_number: accountNumber }).orderBy('id');
const receivedWith = (messageId: string) => sink.received.filter((m) => m.messageId === messageId);
const outboxOf = (type: string, ext: string) =>
  s.t.db('outbox').where({ event_type: type }).whereRaw(`envelope->'data'->>'import_process_external_identifier' = ?`, [ext]);

beforeAll(async () => {
  sink = await startSmtpSink();
  templatesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-templates-'));
  s = await startStack({ env: { SMTP_URL: sink.url, EMAIL_TEMPLATES_DIR: templatesDir } });
  await updateSupplier(s.t.db, 'DEMO_ENERGY', {
    sendCustomerEmails: true,
    emailFromName: 'Demo Energy',
    emailFromAddress: 'welcome@demo-energy.example',
    emailReplyTo: 'help@demo-energy.example',
    emailRatePerSecond: 50,
  });
  // The crash test's worker process loads its modules while the tests before it run.
  crashWorker = holdCrashWorker({ DATABASE_URL: s.t.url, TEMPORAL_ADDRESS: s.config.temporal.address, TASK_QUEUE: s.taskQueue, BUILD_ID: s.buildId, SUBJECT_PREFIX: s.subjectPrefix, CRASH_AT: 'never', SMTP_URL: sink.url, SMTP_REQUIRE_TLS: 'false', EMAIL_TEMPLATES_DIR: templatesDir });
  sink.rcpt = (address, attempt) => {
    if (address.startsWith('bounce-')) return [550, '5.1.1 mailbox unavailable'];
    if (address.startsWith('tempfail-') && attempt === 1) return [451, '4.3.0 try again later'];
    return undefined;
  };
}, 60_000);

afterAll(async () => {
  crashWorker?.kill();
  await s.stop();
  await sink.close();
  fs.rmSync(templatesDir, { recursive: true, force: true });
});

describe('customer e-mails on migration', () => {
  it('delivers the rendered welcome e-mail to each customer with an address, skips and counts the one without, and reports post_import.completed', async () => {
    const ext = s.ext('MAIL-OK');
    await importAccount(ext, ['aoife-ok@example.org', null]);
    const p = await postImportFinished(ext);
    expect(p).toMatchObject({ status: 'PROCESSED', current_step: 'done' });

    const rows = await emailsOf(p.kraken_identifier);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['SENT', 1],
      ['SKIPPED', 0],
    ]);
    expect(rows[0].last_smtp_response).toMatch(/^250/);
    expect(rows[1].email).toBeNull();

    const mails = receivedWith(rows[0].message_id);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toEqual(['aoife-ok@example.org']);
    expect(mail.subject).toBe(`Welcome to Demo Energy: your account ${p.kraken_identifier} has moved`);
    for (const part of [mail.html, mail.text]) {
      expect(part).toContain('Dear Aoife');
      expect(part).toContain(p.kraken_identifier);
      expect(part).toContain(ext);
      expect(part).toContain('17 Harbour Row');
      expect(part).toContain('E-2R-VAR-22-11-01-M');
    }
    expect(mail.headers.get('reply-to')).toMatchObject({ text: 'help@demo-energy.example' });

    expect(await outboxOf('data_import.import_process.post_import.completed', ext)).toHaveLength(1);
    expect(await outboxOf('data_import.import_process.post_import.error', ext)).toHaveLength(0);
  }, 90_000);

  it('marks a permanently refused recipient BOUNCED and publishes exactly one comms.customer_email_bounced-v1; the import stays PROCESSED', async () => {
    const ext = s.ext('MAIL-BOUNCE');
    await importAccount(ext, [`bounce-${ext}@example.org`]);
    const p = await postImportFinished(ext);
    expect(p).toMatchObject({ status: 'PROCESSED', current_step: 'done' });
    const [row] = await emailsOf(p.kraken_identifier);
    expect(row).toMatchObject({ status: 'BOUNCED', attempts: 1 });
    expect(row.last_smtp_response).toMatch(/^550/);
    expect(receivedWith(row.message_id)).toHaveLength(0);

    const bounced = await eventually(async () => {
      const all = await readStream(s.nc, s.stream, `${s.subjectPrefix}.comms.customer_email_bounced.v1`);
      const mine = all.filter((e) => (e.envelope.data as { account_number: string }).account_number === p.kraken_identifier);
      return mine.length > 0 ? mine : undefined;
    });
    expect(bounced).toHaveLength(1);
    expect(bounced[0]!.envelope.data).toEqual({
      account_number: p.kraken_identifier,
      user_id: Number(row.user_id),
      message_id: Number(row.id),
      template_code: 'migration_welcome',
      bounced_at: row.bounced_at.toISOString(),
    });
  }, 90_000);

  it('retries a temporary SMTP answer (451) and then sends the e-mail once', async () => {
    const ext = s.ext('MAIL-TEMP');
    const address = `tempfail-${ext}@example.org`;
    await importAccount(ext, [address]);
    const p = await postImportFinished(ext);
    const [row] = await emailsOf(p.kraken_identifier);
    expect(row).toMatchObject({ status: 'SENT', attempts: 2 });
    expect(sink.rcptSeen.get(address)).toBe(2);
    expect(receivedWith(row.message_id)).toHaveLength(1);
    expect(await outboxOf('data_import.import_process.post_import.completed', ext)).toHaveLength(1);
  }, 90_000);

  it('ends FAILED with post_import.error when the supplier has no sender address, and `emails resend` sends them once it has one', async () => {
    const ext = s.ext('MAIL-NOSENDER');
    await updateSupplier(s.t.db, 'DEMO_ENERGY', { emailFromAddress: null });
    try {
      await importAccount(ext, ['nosender@example.org']);
      const p = await postImportFinished(ext);
      expect(p).toMatchObject({ status: 'PROCESSED', current_step: 'post_import_failed' });
      const errors = await outboxOf('data_import.import_process.post_import.error', ext);
      expect(errors).toHaveLength(1);
      expect(errors[0].envelope.data.error_code).toBe('customer_email_delivery_failed');
      expect((await emailsOf(p.kraken_identifier)).map((r) => r.status)).toEqual(['FAILED']);
    } finally {
      await updateSupplier(s.t.db, 'DEMO_ENERGY', { emailFromAddress: 'welcome@demo-energy.example' });
    }

    const env = { APP_ENV: 'test', DATABASE_URL: s.t.url, SMTP_URL: sink.url, SMTP_REQUIRE_TLS: 'false', EVENTS_SUBJECT_PREFIX: s.subjectPrefix };
    const listed = await runCli(['emails', 'list', '--supplier', 'DEMO_ENERGY', '--account', ext, '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((e: { status: string }) => e.status)).toEqual(['FAILED']);
    expect(listed.stdout).not.toContain('nosender@example.org');

    const resent = await runCli(['emails', 'resend', '--supplier', 'DEMO_ENERGY', '--account', ext, '--json'], env);
    expect(resent.code).toBe(0);
    expect(JSON.parse(resent.stdout)).toEqual({ requeued: 1, sent: 1, bounced: 0, deferred: 0, failed: 0 });
    const p = await postImportFinished(ext);
    const [row] = await emailsOf(p.kraken_identifier);
    expect(row.status).toBe('SENT');
    expect(receivedWith(row.message_id)).toHaveLength(1);
  }, 90_000);

  it('keeps the supplier rate across two workers: N e-mails at r per second take at least (N-1)/r seconds', async () => {
    // Slow enough that 8 imports finishing on their own pace could not spread their mails this far.
    const rate = 2;
    const n = 12;
    await updateSupplier(s.t.db, 'DEMO_ENERGY', { emailRatePerSecond: rate });
    const connection = await NativeConnection.connect({ address: s.config.temporal.address });
    const mail = createMailer(s.config.email);
    const second: Worker = await createWorker({
      connection,
      namespace: s.config.temporal.namespace,
      taskQueue: s.taskQueue,
      workflowBundlePath: testWorkflowBundle(),
      activities: createWorkerActivities({ db: s.t.db, validator: databaseValidator({ db: s.t.db, cache: s.cache }), subjectPrefix: s.subjectPrefix, log: silentLog, mail }),
      version: { deploymentName: s.config.temporal.deploymentName, buildId: s.buildId },
    });
    const run = second.run();
    try {
      const exts = Array.from({ length: n }, (_, i) => s.ext(`MAIL-RATE-${i}`));
      const submitted = Date.now();
      await Promise.all(exts.map((ext) => importAccount(ext, [`rate-${ext}@example.org`])));
      const finished = await Promise.all(exts.map((ext) => postImportFinished(ext, 120_000)));
      const rows = await s.t.db('customer_email_queue').whereIn('account_number', finished.map((p) => p.kraken_identifier));
      expect(rows.map((r) => r.status)).toEqual(Array(n).fill('SENT'));
      const starts = rows.map((r) => receivedWith(r.message_id)[0]!.mailFromAt).sort((a, b) => a - b);
      const minimumMs = ((n - 1) / rate) * 1000;
      // No e-mail is sent before its slot, and the slots are (N-1)/r apart and all after the
      // imports were submitted: an exact bound.
      expect(Math.max(...rows.map((r) => receivedWith(r.message_id)[0]!.at)) - submitted).toBeGreaterThanOrEqual(minimumMs);
      // Between the first and the last send: the same, less the first conversation's own latency
      // on a busy machine (a second at most). Imports alone would finish far closer together.
      expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(minimumMs - 1000);
    } finally {
      second.shutdown();
      await run;
      mail.transport.close();
      await connection.close();
      await updateSupplier(s.t.db, 'DEMO_ENERGY', { emailRatePerSecond: 50 });
    }
  }, 180_000);

  it('a worker SIGKILLed while sending leaves no e-mail unsent and none recorded twice (the re-sent copy has the same Message-ID)', async () => {
    const ext = s.ext('MAIL-CRASH');
    await s.stopWorker();
    // Loaded since beforeAll (test/support/crashWorkerProcess.ts): it polls from now on.
    const child = crashWorker;
    await child.start();
    const exited = child.exited;
    // The relay has stored the first message; the sender dies before it hears 250 and before it records anything.
    let killed = false;
    sink.beforeAccept = async (m) => {
      if (killed || !m.to[0]?.startsWith(`crash-`)) return;
      killed = true;
      child.kill();
      await exited;
    };
    try {
      await importAccount(ext, [`crash-a-${ext}@example.org`, `crash-b-${ext}@example.org`]);
      expect(await exited).toBe('SIGKILL');
      expect(killed).toBe(true);
      // A healthy worker takes over when the activity's heartbeat times out (20 s).
      await s.startWorker();
      const p = await postImportFinished(ext, 120_000);
      expect(p).toMatchObject({ status: 'PROCESSED', current_step: 'done' });
      const rows = await emailsOf(p.kraken_identifier);
      expect(rows.map((r) => r.status)).toEqual(['SENT', 'SENT']);
      // Each recorded once (one attempt each: the killed one rolled back with its connection).
      expect(rows.map((r) => r.attempts)).toEqual([1, 1]);
      // The first reached the relay twice, both copies with the same Message-ID; the second once.
      expect(receivedWith(rows[0].message_id)).toHaveLength(2);
      expect(receivedWith(rows[1].message_id)).toHaveLength(1);
      expect(await outboxOf('data_import.import_process.post_import.completed', ext)).toHaveLength(1);
    } finally {
      sink.beforeAccept = async () => undefined;
      if (!killed) child.kill();
    }
  }, 180_000);

  it('never completes a message whose transaction died mid-conversation: the relay takes it once, from the retry (issue 48: the duplicate window)', async () => {
    const ext = s.ext('MAIL-SESSION');
    let ended = 0;
    // The sender's PostgreSQL session ends while it talks to the relay (a primary killed or failed
    // over mid-send): before, the relay took the message, the commit failed and the retry sent it again.
    sink.atMailFrom = async () => {
      if (ended > 0) return;
      const r = await s.t.db.raw(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'`);
      ended = r.rows.filter((x: { ok: boolean }) => x.ok).length;
    };
    try {
      await importAccount(ext, [`session-${ext}@example.org`]);
      const p = await postImportFinished(ext, 120_000);
      expect(ended).toBeGreaterThan(0);
      expect(p).toMatchObject({ status: 'PROCESSED', current_step: 'done' });
      const [row] = await emailsOf(p.kraken_identifier);
      expect(row).toMatchObject({ status: 'SENT', attempts: 1 });
      expect(receivedWith(row.message_id)).toHaveLength(1);
    } finally {
      sink.atMailFrom = async () => undefined;
    }
  }, 180_000);

  it('previews the rendered mail from the CLI with a supplier override, and counts e-mails by state in /metrics', async () => {
    const ext = s.ext('MAIL-OK');
    const dir = path.join(templatesDir, 'DEMO_ENERGY', 'migration_welcome');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'subject.hbs'), 'Hello {{customer.givenName}}, {{supplier.name}} looks after {{account.externalNumber}} now\n');
    const env = { APP_ENV: 'test', DATABASE_URL: s.t.url, EMAIL_TEMPLATES_DIR: templatesDir };
    const r = await runCli(['emails', 'preview', '--supplier', 'DEMO_ENERGY', '--account', ext], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Subject: Hello Aoife, Demo Energy looks after ${ext} now`);
    expect(r.stdout).toContain('Dear Aoife');
    expect(r.stdout).toContain('E-2R-VAR-22-11-01-M');
    expect(r.stdout).toMatch(/Message-ID: <[0-9a-f]{32}\.migration_welcome@demo-energy\.example>/);
    const html = await runCli(['emails', 'preview', '--supplier', 'DEMO_ENERGY', '--account', ext, '--part', 'html'], env);
    expect(html.stdout).toMatch(/^<!doctype html>/);
    const missing = await runCli(['emails', 'preview', '--supplier', 'DEMO_ENERGY', '--account', 'NO-SUCH-ACCOUNT'], env);
    expect(missing.code).toBe(1);

    registerCustomerEmailGauge(s.deps.metrics, s.t.db);
    const counts = await s.t.db('customer_email_queue').select('status').count('* as n').groupBy('status');
    const metrics = (await s.request().get('/metrics')).text;
    for (const c of counts) expect(metrics).toContain(`data_import_customer_emails{status="${c.status}",component="test"} ${c.n}`);
    expect(counts.map((c) => c.status)).toEqual(expect.arrayContaining(['SENT', 'SKIPPED', 'BOUNCED']));
  }, 60_000);
});
