import { spawn, ChildProcess } from 'node:child_process';
import { freePort } from '../support/natsServer';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { createMailer } from '../../emails/mailer';
import { eventually } from '../support/stack';

/**
 * The local mail sink `npm run up` starts (maildev, scripts/lib/common.sh ensure_mail_sink) runs
 * on this Node and shows a rendered welcome e-mail through its inbox API.
 */
describe('the local mail sink (maildev)', () => {
  let child: ChildProcess;
  let smtp: number;
  let web: number;
  beforeAll(async () => {
    smtp = await freePort();
    web = await freePort();
    child = spawn(process.execPath, [path.join(__dirname, '../../node_modules/maildev/bin/maildev'), '--smtp', String(smtp), '--web', String(web), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '--silent'], { stdio: 'ignore' });
    await eventually(async () => (await fetch(`http://127.0.0.1:${web}/email`)).ok, 30_000, 200);
  }, 40_000);
  afterAll(() => {
    child.kill('SIGTERM');
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
      const list = (await (await fetch(`http://127.0.0.1:${web}/email`)).json()) as { subject: string; html: string; text: string; messageId: string }[];
      return list.length > 0 ? list : undefined;
    });
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.subject).toBe('Welcome to Demo Energy: your account A-0FFE3B2E has moved');
    expect(inbox[0]!.messageId).toBe('abc.migration_welcome@demo-energy.example');
    expect(inbox[0]!.html).toContain('G-1R-VAR');
    expect(inbox[0]!.text).toContain('Dear Aoife,');
  }, 30_000);
});
