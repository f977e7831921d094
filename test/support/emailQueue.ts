import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { insertAccount, newAccountNumber, type Account } from '../../db/stores/accountStore';
import { queueEmails } from '../../emails/store';
import { TemplateRenderer, type RenderedMail, type TemplateCode, type TemplateContext } from '../../emails/templates';

const EXAMPLE_PATH = path.join(__dirname, '../../examples/account-dual-fuel.json');

/** The sender's domain of a test supplier (a host name: no underscore). */
const domainOf = (code: string) => `${code.toLowerCase().replace(/_/g, '-')}.example`;

/** Import suppliers that send e-mails (sender address, a quick rate), written straight to the database. */
export async function emailSuppliers(db: Knex, codes: string[]): Promise<void> {
  await db('import_suppliers').insert(codes.map((code) => ({ code, send_customer_emails: true, email_from_address: `welcome@${domainOf(code)}`, email_rate_per_second: 50 })));
}

/**
 * An account of `supplier` stored without an import, whose customers (given names and addresses,
 * in this order) have their welcome e-mail QUEUED, as post-import queues them. Its account number.
 */
export async function queuedAccount(db: Knex, supplier: string, external: string, customers: { givenName: string; email: string }[]): Promise<string> {
  const a = JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Account & { customers: Record<string, unknown>[] };
  a.external_account_number = external;
  a.references = (a.references ?? []).map((r) => ({ ...r, value: `${r.value}-${external}` }));
  const base = a.customers[0]!;
  a.customers = customers.map((c) => ({ ...base, given_name: c.givenName, salutation: `Dear ${c.givenName}`, email: c.email }));
  const accountNumber = newAccountNumber();
  const created = await db.transaction((trx) => insertAccount(trx, { importSupplier: supplier, externalAccountNumber: external, accountNumber, account: a }));
  const users = created.users.map((u) => ({ userId: u.userId, userNumber: u.userNumber, email: u.email }));
  await queueEmails(db, { importSupplier: supplier, externalAccountNumber: external, accountNumber, template: 'migration_welcome', domain: domainOf(supplier), users });
  return accountNumber;
}

/** The service's templates, but `fail(context)` runs first: a test's poison e-mail (a template that throws on its data, or kills the process). */
export class PoisonRenderer extends TemplateRenderer {
  constructor(private readonly fail: (context: TemplateContext) => void) {
    super(path.join(__dirname, 'no-overrides'));
  }

  override render(supplier: string, template: TemplateCode, context: TemplateContext): RenderedMail {
    this.fail(context);
    return super.render(supplier, template, context);
  }
}
