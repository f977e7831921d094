import type { Knex } from 'knex';
import type { ReferencePair } from '../../account/referenceDataStore';

/**
 * The features' reads of the Account's tables (issue 51: one owner per table): an imported
 * account found or locked by its import's key, its customers, its meter points, the references
 * another account holds, and the correlated subqueries an import's own queries embed. Every
 * function takes a knex handle that may be a transaction and never opens one.
 */

/** The imported account's id and number; null when never imported (registration/markForRegistration.ts). */
export async function findImportedAccount(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<{ id: number; number: string } | null> {
  const row = await db('accounts')
    .where({ import_supplier: importSupplier, external_account_number: externalAccountNumber })
    .first('id', 'number');
  return row ? { id: Number(row.id), number: row.number as string } : null;
}

/** The imported account's row, locked (FOR UPDATE) until the caller's transaction ends (top-ups, the payment instruction); undefined when never imported. */
export async function lockAccountRow(trx: Knex, importSupplier: string, externalAccountNumber: string): Promise<{ id: string; number: string } | undefined> {
  const row = await trx('accounts').where({ import_supplier: importSupplier, external_account_number: externalAccountNumber }).forUpdate().first('id', 'number');
  return row ? { id: String(row.id), number: row.number as string } : undefined;
}

/** The platform account number of `account` of the supplier: the account number itself or the external one; undefined when not imported. */
export async function accountNumberOf(db: Knex, supplier: string, account: string): Promise<string | undefined> {
  const row = (await db('accounts')
    .where({ import_supplier: supplier })
    .andWhere((q) => q.where({ number: account }).orWhere({ external_account_number: account }))
    .first('number')) as { number: string } | undefined;
  return row?.number;
}

/** A customer's name and salutation, as the e-mails greet them. */
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

/** A meter point of the account as registration reads it (registration/store.ts lockMeterPoints). */
export interface MeterPointRow {
  id: string | number;
  identifier: string;
  supply_type: string;
  mpid: string | null;
  supply_start_date: string | null;
  et_in_progress: boolean | null;
  dr_in_progress: boolean | null;
}

/**
 * The account's meter points in payload order, locked (FOR UPDATE) until the transaction ends:
 * two requests for the same account take turns, so the second sees the first one's marks.
 */
export async function lockMeterPointRows(trx: Knex, accountId: number): Promise<MeterPointRow[]> {
  return (await trx('meter_points')
    .where({ account_id: accountId })
    .orderBy('id')
    .forUpdate()
    .select('id', 'identifier', 'supply_type', 'mpid', 'supply_start_date', 'et_in_progress', 'dr_in_progress')) as MeterPointRow[];
}

/**
 * Each MPAN/MPRN of the imported account in payload order with the status of its registration
 * record (meter_point_registrations, registration/'s; null: none yet), in one query. Null when
 * the account is not imported (unknown supplier or account, or only staged).
 */
export async function meterPointRegistrationRows(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<{ identifier: string; status: string | null }[] | null> {
  const account = await db('accounts').where({ import_supplier: importSupplier, external_account_number: externalAccountNumber }).first('id');
  if (!account) return null;
  return (await db('meter_points as mp')
    .leftJoin('meter_point_registrations as r', 'r.meter_point_id', 'mp.id')
    .where('mp.account_id', account.id)
    .orderBy('mp.id')
    .select('mp.identifier', 'r.status')) as { identifier: string; status: string | null }[];
}

/**
 * The (namespace, value) pairs of `pairs` already used by another account of the same import
 * supplier than (importSupplier, externalAccountNumber). References are unique per import supplier
 * (migration 0017): another tenant's references are neither seen nor blocking (issue 39 finding 6).
 */
export async function findReferenceOwners(
  db: Knex,
  account: { importSupplier: string; externalAccountNumber: string },
  pairs: readonly ReferencePair[],
): Promise<ReferencePair[]> {
  if (pairs.length === 0) return [];
  const result = await db.raw(
    `SELECT r.namespace, r.value
       FROM account_references r
       JOIN jsonb_to_recordset(?::jsonb) AS p(namespace text, value text)
         ON p.namespace = r.namespace AND p.value = r.value
      WHERE r.import_supplier = ? AND r.external_account_number <> ?`,
    [JSON.stringify(pairs), account.importSupplier, account.externalAccountNumber],
  );
  return (result.rows as ReferencePair[]).map((r) => ({ namespace: r.namespace, value: r.value }));
}

// Correlated subqueries over an import process's row (imports/'s `import_processes`), as SQL text an
// import's query selects: `p` is the row's name in that query (an alias, or the table's name).

/** Whether an account of the process's import (supplier and external number) exists (imports/writeStore.ts). */
export const accountExistsSql = (p: string): string => `EXISTS (SELECT 1 FROM accounts a
                              WHERE a.import_supplier = ${p}.import_supplier
                                AND a.external_account_number = ${p}.external_account_number)`;

/**
 * The references of the process's stored payload that another account of its import supplier
 * holds, as a jsonb array of distinct {namespace, value} (findReferenceOwners, asked of the stored
 * payload).
 */
export const takenReferencesSql = (p: string): string => `(SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('namespace', r.namespace, 'value', r.value)), '[]'::jsonb)
                          FROM account_references r
                          JOIN jsonb_to_recordset(CASE WHEN jsonb_typeof(${p}.payload->'references') = 'array'
                                                       THEN ${p}.payload->'references' ELSE '[]'::jsonb END)
                               AS q(namespace text, value text)
                            ON q.namespace = r.namespace AND q.value = r.value
                         WHERE r.import_supplier = ${p}.import_supplier
                           AND r.external_account_number <> ${p}.external_account_number)`;

/**
 * When the process's account was created, as text (`expr` formats `a.created_at`), while the process
 * is PROCESSED; else null (imports/listing/store.ts). A correlated subquery, not a join: the
 * listing's plan stays an index scan in id order that yields its first row at once.
 */
export const accountCreatedAtSql = (p: string, createdAtText: (column: string) => string): string => `(SELECT ${createdAtText('a.created_at')}
  FROM accounts a WHERE a.import_supplier = ${p}.import_supplier AND a.external_account_number = ${p}.external_account_number
  AND ${p}.status = 'PROCESSED')`;
