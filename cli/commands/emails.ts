import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import type { Knex } from 'knex';
import MailComposer from 'nodemailer/lib/mail-composer';
import { getSupplier, ImportSupplier } from '../../suppliers/store';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { integerIn, json, table, withExamples } from '../format';
import { CustomerEmail, EMAIL_STATUSES, EmailStatus, failQueued, listEmails, requeue, stableMessageId } from '../../emails/store';
import { deliverAccountEmails, renderEmail, SenderNotConfiguredError } from '../../emails/delivery';
import { createMailer } from '../../emails/mailer';
import { accountCustomers, accountNumberOf as findAccountNumber } from '../../db/stores/accountLookups';
import { TEMPLATE_CODES, TemplateCode, TemplateRenderer } from '../../emails/templates';
import { WELCOME_TEMPLATE } from '../../activities/emails/customerEmails';
import { createLogger } from '../../lib/logger';

/**
 * `data-import emails`: the customer e-mails of imported accounts (docs/customer-emails.md):
 * preview the rendered mail, list e-mails by state, resend failed or bounced ones.
 */

async function requireSupplier(db: Knex, code: string): Promise<ImportSupplier> {
  const s = await getSupplier(db, code);
  if (!s) throw new CliError(`import supplier ${code} not found`);
  return s;
}

/** The platform account number of `--account`: the account number itself or the supplier's external one. */
async function accountNumberOf(db: Knex, supplier: string, account: string): Promise<string> {
  const number = await findAccountNumber(db, supplier, account);
  if (!number) throw new CliError(`no imported account ${account} of import supplier ${supplier}`);
  return number;
}

function emailJson(e: CustomerEmail) {
  return {
    id: e.id,
    import_supplier: e.importSupplier,
    external_account_number: e.externalAccountNumber,
    account_number: e.accountNumber,
    user_number: e.userNumber,
    template: e.template,
    status: e.status,
    message_id: e.messageId,
    attempts: e.attempts,
    last_smtp_response: e.lastSmtpResponse,
    last_attempt_at: e.lastAttemptAt?.toISOString() ?? null,
    sent_at: e.sentAt?.toISOString() ?? null,
    bounced_at: e.bouncedAt?.toISOString() ?? null,
  };
}

interface FilterOptions {
  supplier?: string;
  account?: string;
  status?: EmailStatus;
}

async function filterOf(db: Knex, o: FilterOptions) {
  const accountNumber = o.account ? await accountNumberOf(db, o.supplier ?? '', o.account) : undefined;
  return { importSupplier: o.supplier, accountNumber, status: o.status };
}

export function register(program: Command): void {
  const group = program.command('emails').description('Customer e-mails of imported accounts: preview the rendered mail, list e-mails by state, resend failed or bounced ones.');
  withExamples(group, ['data-import emails preview --supplier DEMO_ENERGY --account LEGACY-100045', 'data-import emails list --supplier DEMO_ENERGY --status BOUNCED']);

  withExamples(
    group
      .command('preview')
      .description("Render an account's e-mail as each customer would receive it (the supplier's overrides included), without sending anything.")
      .requiredOption('--supplier <code>', 'import supplier code')
      .requiredOption('--account <number>', 'the account number, or the external account number of the supplier')
      .option('--customer <user-number>', 'only this customer (user number); default every customer with an address')
      .addOption(new Option('--template <code>', 'template to render').choices(TEMPLATE_CODES).default(WELCOME_TEMPLATE))
      .addOption(new Option('--part <part>', 'what to print: the text part, the HTML part, or both with the headers').choices(['text', 'html', 'all']).default('all'))
      .option('--out <folder>', 'also write each rendered mail as <folder>/<user-number>.eml (open it in a mail client)'),
    [
      'data-import emails preview --supplier DEMO_ENERGY --account LEGACY-100045',
      'data-import emails preview --supplier DEMO_ENERGY --account LEGACY-100045 --part html > welcome.html',
      'data-import emails preview --supplier DEMO_ENERGY --account LEGACY-100045 --out /tmp/previews',
    ],
  ).action(async (o: { supplier: string; account: string; customer?: string; template: TemplateCode; part: 'text' | 'html' | 'all'; out?: string }) => {
    await withDb(async (db, config) => {
      const supplier = await requireSupplier(db, o.supplier);
      const accountNumber = await accountNumberOf(db, o.supplier, o.account);
      const users = await accountCustomers(db, accountNumber, o.customer);
      if (users.length === 0) throw new CliError(o.customer ? `account ${accountNumber} has no customer ${o.customer}` : `account ${accountNumber} has no customer with an e-mail address`);
      const renderer = new TemplateRenderer(path.resolve(config.email.templatesDir));
      const from = supplier.emailFromAddress ? { name: supplier.emailFromName ?? supplier.code, address: supplier.emailFromAddress } : `${supplier.code} <(no sender address configured)>`;
      for (const u of users) {
        const mail = await renderEmail(db, renderer, supplier, { accountNumber, userNumber: u.user_number, template: o.template });
        const messageId = stableMessageId(accountNumber, u.user_number, o.template, supplier.emailFromAddress?.split('@')[1] ?? 'data-import.invalid');
        if (o.out) {
          fs.mkdirSync(o.out, { recursive: true });
          const eml = await new MailComposer({ from, to: u.email ?? undefined, replyTo: supplier.emailReplyTo ?? undefined, messageId, subject: mail.subject, html: mail.html, text: mail.text }).compile().build();
          fs.writeFileSync(path.join(o.out, `${u.user_number}.eml`), eml);
        }
        if (o.part === 'text') print(mail.text);
        else if (o.part === 'html') print(mail.html);
        else {
          const sender = typeof from === 'string' ? from : `${from.name} <${from.address}>`;
          print(
            [`From: ${sender}`, `To: ${u.email ?? '(no address: skipped when sending)'}`, ...(supplier.emailReplyTo ? [`Reply-To: ${supplier.emailReplyTo}`] : []), `Subject: ${mail.subject}`, `Message-ID: ${messageId}`, `Customer: ${u.user_number}`, '', '--- text ---', mail.text, '--- html ---', mail.html].join('\n'),
          );
        }
      }
      if (o.out) print(`Wrote ${users.length} .eml file(s) to ${o.out}.`);
    });
  });

  const filters = (cmd: Command) =>
    cmd
      .option('--supplier <code>', 'only e-mails of this import supplier')
      .option('--account <number>', 'only e-mails of this account (account number or external account number; needs --supplier)');

  withExamples(
    filters(group.command('list').description('List customer e-mails with their state, attempts and last SMTP answer (no addresses).'))
      .addOption(new Option('--status <status>', 'only e-mails in this state').choices(EMAIL_STATUSES))
      .option('--limit <n>', 'at most this many e-mails (1-10000)', integerIn(1, 10_000), 100)
      .option('--json', 'print a JSON array instead of a table'),
    ['data-import emails list --supplier DEMO_ENERGY', 'data-import emails list --supplier DEMO_ENERGY --account LEGACY-100045 --json', 'data-import emails list --status FAILED'],
  ).action(async (o: FilterOptions & { limit: number; json?: boolean }) => {
    if (o.account && !o.supplier) throw new CliError('--account needs --supplier');
    await withDb(async (db) => {
      const rows = await listEmails(db, await filterOf(db, o), o.limit);
      if (o.json) return print(json(rows.map(emailJson)));
      print(
        table(
          ['ID', 'SUPPLIER', 'ACCOUNT', 'CUSTOMER', 'TEMPLATE', 'STATUS', 'ATTEMPTS', 'LAST SMTP ANSWER', 'UPDATED'],
          rows.map((e) => [e.id, e.importSupplier, e.accountNumber, e.userNumber, e.template, e.status, e.attempts, e.lastSmtpResponse?.slice(0, 60), e.updatedAt]),
          '(no customer e-mails)',
        ),
      );
    });
  });

  withExamples(
    filters(group.command('resend').description("Queue FAILED (and with --bounced, BOUNCED) e-mails again and send them now from this process, at the supplier's rate; the same Message-ID as before."))
      .option('--bounced', 'also resend BOUNCED e-mails (after the address was corrected)')
      .option('--json', 'print the outcome as JSON'),
    ['data-import emails resend --supplier DEMO_ENERGY', 'data-import emails resend --supplier DEMO_ENERGY --account LEGACY-100045 --bounced'],
  ).action(async (o: FilterOptions & { bounced?: boolean; json?: boolean }) => {
    if (!o.supplier) throw new CliError('resend needs --supplier (and optionally --account)');
    await withDb(async (db, config) => {
      await requireSupplier(db, o.supplier!);
      const filter = await filterOf(db, o);
      const ids = await requeue(db, filter, o.bounced ? ['FAILED', 'BOUNCED'] : ['FAILED']);
      const accounts = [...new Set((await listEmails(db, { ...filter, status: 'QUEUED' }, 10_000)).filter((e) => ids.includes(e.id)).map((e) => e.accountNumber))];
      const mail = createMailer(config.email);
      const total = { requeued: ids.length, sent: 0, bounced: 0, deferred: 0, failed: 0 };
      try {
        for (const accountNumber of accounts) {
          const r = await deliverAccountEmails({ db, ...mail, subjectPrefix: config.nats.subjectPrefix, log: createLogger({ level: 'silent', name: 'cli' }) }, accountNumber);
          total.sent += r.sent;
          total.bounced += r.bounced;
          total.deferred += r.deferred;
          total.failed += r.failed + r.setAside;
          // No workflow retries these: back to FAILED, for the next resend.
          if (r.deferred > 0 || r.failed > 0) await failQueued(db, { accountNumber }, new Date());
        }
      } catch (err) {
        if (err instanceof SenderNotConfiguredError) throw new CliError(err.message);
        throw err;
      } finally {
        mail.transport.close();
      }
      if (o.json) return print(json(total));
      print(`Queued ${total.requeued} e-mail(s) again: ${total.sent} sent, ${total.bounced} bounced, ${total.deferred} deferred (temporary SMTP answer: FAILED again, resend later)${total.failed > 0 ? `, ${total.failed} failed for a reason of their own (FAILED again; set aside after their last attempt: data-import set-aside list --queue email)` : ''}.`);
    });
  });
}
