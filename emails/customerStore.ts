import type { Knex } from 'knex';

/** The customers (account_users) of imported accounts, as the e-mails address and greet them. */

export interface CustomerName {
  given_name: string | null;
  family_name: string | null;
  title: string | null;
  salutation: string | null;
}

/** The name and salutation of the customer `userNumber`; undefined when there is none. */
export async function customerName(db: Knex, userNumber: string): Promise<CustomerName | undefined> {
  return (await db('account_users').where({ user_number: userNumber }).first(['given_name', 'family_name', 'title', 'salutation'])) as CustomerName | undefined;
}

/** The account's customers in payload order: `customer` alone when given, else those with an e-mail address. */
export async function accountCustomers(db: Knex, accountNumber: string, customer?: string): Promise<{ user_number: string; email: string | null }[]> {
  return (await db('account_users')
    .join('accounts', 'accounts.id', 'account_users.account_id')
    .where('accounts.number', accountNumber)
    .modify((q) => void (customer ? q.where('account_users.user_number', customer) : q.whereNotNull('account_users.email')))
    .orderBy('account_users.id')
    .select('account_users.user_number', 'account_users.email')) as { user_number: string; email: string | null }[];
}

/** The platform account number of `account` of the supplier: the account number itself or the external one; undefined when not imported. */
export async function accountNumberOf(db: Knex, supplier: string, account: string): Promise<string | undefined> {
  const row = (await db('accounts')
    .where({ import_supplier: supplier })
    .andWhere((q) => q.where({ number: account }).orWhere({ external_account_number: account }))
    .first('number')) as { number: string } | undefined;
  return row?.number;
}
