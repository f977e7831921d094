import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { classifySmtpError } from '../../../emails/transport';
import { stableMessageId } from '../../../emails/store';
import { TemplateContext, TemplateRenderer } from '../../../emails/templates';

const context: TemplateContext = {
  supplier: { code: 'ACME', name: 'Acme <Energy>', replyTo: null },
  customer: { title: 'Ms', givenName: 'Aoife', familyName: 'Ní Bhriain', fullName: 'Ms Aoife Ní Bhriain', salutation: 'Dear Aoife' },
  account: { number: 'A-1234ABCD', externalNumber: 'LEGACY-1' },
  supplyAddresses: [{ lines: ['Flat 2', '17 Harbour Row', 'LS1 4DY'], postcode: 'LS1 4DY', meterPoints: [{ supplyType: 'Electricity', identifier: '2300111122226', tariff: 'E-1R-VAR' }] }],
};

describe('SMTP answers', () => {
  it('treats a 5xx to RCPT TO or DATA as a bounce', () => {
    expect(classifySmtpError({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 unknown' })).toMatchObject({ kind: 'bounce', code: 550 });
    expect(classifySmtpError({ code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 rejected' })).toMatchObject({ kind: 'bounce', code: 554 });
  });

  it('retries 4xx, connection failures and 5xx to MAIL FROM or AUTH (configuration, not the recipient)', () => {
    expect(classifySmtpError({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 451, response: '451 later' }).kind).toBe('temporary');
    expect(classifySmtpError({ code: 'ECONNECTION', message: 'connect ECONNREFUSED' })).toMatchObject({ kind: 'temporary', code: null });
    expect(classifySmtpError({ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 553, response: '553 sender' }).kind).toBe('temporary');
    expect(classifySmtpError({ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535, response: '535 bad auth' }).kind).toBe('temporary');
  });
});

describe('Message-ID', () => {
  it('depends on account, customer and template only', () => {
    const a = stableMessageId('A-1', 'U-1', 'migration_welcome', 'acme.example');
    expect(a).toMatch(/^<[0-9a-f]{32}\.migration_welcome@acme\.example>$/);
    expect(stableMessageId('A-1', 'U-1', 'migration_welcome', 'acme.example')).toBe(a);
    expect(stableMessageId('A-1', 'U-2', 'migration_welcome', 'acme.example')).not.toBe(a);
    expect(stableMessageId('A-2', 'U-1', 'migration_welcome', 'acme.example')).not.toBe(a);
  });
});

describe('templates', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpl-'));
    fs.mkdirSync(path.join(dir, 'ACME', 'migration_welcome'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'ACME', 'migration_welcome', 'text.hbs'), 'Hi {{customer.givenName}} from {{supplier.name}}: {{account.number}}');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("renders the service's template: HTML escaped, text and subject raw", () => {
    const m = new TemplateRenderer(dir).render('OTHER', 'migration_welcome', context);
    expect(m.subject).toBe('Welcome to Acme <Energy>: your account A-1234ABCD has moved');
    expect(m.html).toContain('Acme &lt;Energy&gt;');
    expect(m.html).toContain('Supply address: Flat 2, 17 Harbour Row, LS1 4DY');
    expect(m.text).toContain('Electricity (2300111122226): tariff E-1R-VAR');
    expect(m.text).toContain('Dear Aoife,');
  });

  it("takes the parts a supplier overrides from its folder and the rest from the service's template", () => {
    const r = new TemplateRenderer(dir);
    expect(r.sources('ACME', 'migration_welcome').text).toBe(path.join(dir, 'ACME', 'migration_welcome', 'text.hbs'));
    const m = r.render('ACME', 'migration_welcome', context);
    expect(m.text).toBe('Hi Aoife from Acme <Energy>: A-1234ABCD');
    expect(m.subject).toBe('Welcome to Acme <Energy>: your account A-1234ABCD has moved');
  });
});
