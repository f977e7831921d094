import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { freePort } from '../support/natsServer';
import path from 'node:path';
import http from 'node:http';
import { loadConfig } from '../../lib/config';
import { createMailer } from '../../emails/mailer';
import { eventually } from '../support/stack';

/**
 * The local mail sink `npm run up` starts (maildev behind scripts/lib/mailInbox.js, started by
 * scripts/lib/common.sh ensure_mail_sink itself) runs on this Node, shows a rendered welcome
 * e-mail through its inbox API, and shows it to nobody else (issue 39, finding 7).
 */
describe('the local mail sink (maildev)', () => {
  let pids: number[] = [];
  let smtp: number;
  let web: number;
  let dir: string;
  let auth: { Authorization: string };
  const inboxFetch = (headers: Record<string, string> = auth) => fetch(`http://127.0.0.1:${web}/email`, { headers });
  beforeAll(async () => {
    smtp = await freePort();
    web = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsink-'));
    const out = execFileSync('bash', ['-c', `source "${path.join(__dirname, '../../scripts/lib/common.sh')}"; unset SMTP_URL; ensure_mail_sink "$1" "$2" "$3" 2>/dev/null; echo "\${STARTED_PIDS[@]}"`, 'sh', dir, String(smtp), String(web)], { encoding: 'utf8' });
    pids = out.trim().split(/\s+/).map(Number);
    const secret = fs.readFileSync(path.join(dir, 'maildev/inbox.secret'), 'utf8').trim();
    auth = { Authorization: `Basic ${Buffer.from(`inbox:${secret}`).toString('base64')}` };
    await eventually(async () => (await inboxFetch()).ok, 30_000, 200);
  }, 60_000);
  afterAll(() => {
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its password in a file only its owner reads, and answers no one without it, no other origin and no other Host', async () => {
    expect(fs.statSync(path.join(dir, 'maildev/inbox.secret')).mode & 0o777).toBe(0o600);
    // A page elsewhere in the operator's browser: no password, its own Origin.
    const anon = await inboxFetch({ Origin: 'https://evil.example' });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('access-control-allow-origin')).toBeNull();
    // Even with the password, no answer is readable by another origin.
    const withOrigin = await inboxFetch({ ...auth, Origin: 'https://evil.example' });
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.headers.get('access-control-allow-origin')).toBeNull();
    // DNS rebinding: the page's own name reaches the loopback port; its Host is refused.
    const rebound = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: web, path: '/email', headers: { ...auth, Host: `evil.example:${web}` } }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject);
    });
    expect(rebound).toBe(421);
    // maildev's own web port is not the inbox: loopback only and password-protected too.
    const wrong = await inboxFetch({ Authorization: `Basic ${Buffer.from('inbox:guess').toString('base64')}` });
    expect(wrong.status).toBe(401);
  });

  it('receives the rendered welcome e-mail and lists it in its inbox API', async () => {
    const mail = createMailer(loadConfig({ SMTP_URL: `smtp://127.0.0.1:${smtp}`, SMTP_REQUIRE_TLS: 'false' }).email);
    const m = mail.renderer.render('DEMO_ENERGY', 'migration_welcome', {
      supplier: { code: 'DEMO_ENERGY', name: 'Demo Energy', replyTo: 'help@demo-energy.example' },
      customer: { title: 'Ms', givenName: 'Aoife', familyName: 'B', fullName: 'Ms Aoife B', salutation: 'Dear Aoife' },
      account: { number: 'A-0FFE3B2E', externalNumber: 'LEGACY-100045' },
      supplyAddresses: [{ lines: ['17 Harbour Row', 'LS1 4DY'], postcode: 'LS1 4DY', meterPoints: [{ supplyType: 'Gas', identifier: '7382190405', tariff: 'G-1R-VAR' }] }],
    });
    try {
      await mail.transport.sendMail({ from: { name: 'Demo Energy', address: 'welcome@demo-energy.example' }, to: 'aoife@example.org', messageId: '<abc.migration_welcome@demo-energy.example>', ...m });
    } finally {
      mail.transport.close();
    }
    const inbox = await eventually(async () => {
      const list = (await (await inboxFetch()).json()) as { subject: string; html: string; text: string; messageId: string }[];
      return list.length > 0 ? list : undefined;
    });
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.subject).toBe('Welcome to Demo Energy: your account A-0FFE3B2E has moved');
    expect(inbox[0]!.messageId).toBe('abc.migration_welcome@demo-energy.example');
    expect(inbox[0]!.html).toContain('G-1R-VAR');
    expect(inbox[0]!.text).toContain('Dear Aoife,');
  }, 30_000);

  it("keeps its password and logs when maildev's own delete-all empties the mail folder", async () => {
    // Through maildev's own web port, as its inbox button does (the inbox in front forwards it).
    const del = await fetch(`http://127.0.0.1:${web}/email/all`, { method: 'DELETE', headers: auth });
    expect(del.ok).toBe(true);
    await eventually(async () => ((await (await inboxFetch()).json()) as unknown[]).length === 0, 10_000, 100);
    // maildev removes the files after it answered, one fs.rm each: wait until no mail is left on disk.
    const mails = () => (fs.readdirSync(path.join(dir, 'maildev'), { recursive: true }) as string[]).filter((f) => f.endsWith('.eml'));
    await eventually(async () => mails().length === 0, 10_000, 100);
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(path.join(dir, 'maildev/inbox.secret'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'maildev/server.log'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'maildev/inbox.log'))).toBe(true);
    // The inbox still opens with the password it had.
    expect((await inboxFetch()).status).toBe(200);
  }, 30_000);
});
