import { spawn } from 'node:child_process';
import path from 'node:path';
import { listAllSetAside } from '../../maintenance/setAside';
import { createTestDatabase, TestDatabase } from '../support/db';
import { emailSuppliers, queuedAccount } from '../support/emailQueue';
import { startSmtpSink, SmtpSink } from '../support/smtpSink';

const MAX_ATTEMPTS = 2;
/** A lease no run waits out: a dead attempt holds no row lock, so the next sender takes the e-mail over at once. */
const LEASE_MS = 60_000;

/**
 * A customer e-mail whose handling kills the sender's process (an out-of-memory death, here a
 * SIGKILL while rendering it): before, each worker that took the account's delivery died at that
 * e-mail, for every retry of the activity, and took the other activities of the worker with it;
 * no e-mail after it was sent. Now the attempt is committed before the work: after MAX_ATTEMPTS
 * deaths the e-mail is set aside ("never finished") and the next sender sends every other e-mail,
 * of its account and of another supplier's, and exits normally.
 */
describe('customer e-mail sender killed by a poison e-mail (real process)', () => {
  let t: TestDatabase;
  let sink: SmtpSink;
  let accounts: string[];
  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await createTestDatabase();
    await emailSuppliers(t.db, ['CRASH_A', 'CRASH_B']);
    accounts = [
      await queuedAccount(t.db, 'CRASH_A', 'KILLER', [
        { givenName: 'Killer', email: 'killer@example.org' },
        { givenName: 'Ann', email: 'ann@example.org' },
      ]),
      await queuedAccount(t.db, 'CRASH_B', 'B-1', [{ givenName: 'Bob', email: 'bob@example.org' }]),
    ];
  }, 60_000);
  afterAll(async () => {
    await t?.drop();
    await sink?.close();
  });

  function runSender(): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../support/emailSenderProcess.ts')], {
      env: { ...process.env, DATABASE_URL: t.url, SMTP_URL: sink.url, ACCOUNTS: accounts.join(','), POISON_NAME: 'Killer', MAX_ATTEMPTS: String(MAX_ATTEMPTS), LEASE_MS: String(LEASE_MS) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr: stderr.slice(0, 300) })));
  }

  it('sets the e-mail aside after its attempts died with the process, and the next sender sends every other e-mail and exits normally', async () => {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect(await runSender()).toMatchObject({ signal: 'SIGKILL' });
    }
    expect(sink.received).toEqual([]);
    const after = await runSender();
    expect(after).toMatchObject({ code: 0, signal: null });
    expect(after.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({ account: accounts[0], sent: 1, setAside: 1 }),
      expect.objectContaining({ account: accounts[1], sent: 1, setAside: 0 }),
    ]);
    expect(sink.received.map((m) => m.to[0]).sort()).toEqual(['ann@example.org', 'bob@example.org']);
    const [item] = await listAllSetAside(t.db, { queue: 'email' });
    expect(item).toMatchObject({ queue: 'email', supplier: 'CRASH_A', externalAccountNumber: 'KILLER', attempts: MAX_ATTEMPTS });
    expect(item!.reason).toMatch(/never finished/);
    expect((await t.db('customer_email_queue').where({ email: 'killer@example.org' }).first()).status).toBe('FAILED');
  }, 120_000);
});
