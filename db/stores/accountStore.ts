import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { accountFromRows, createdFromRows, type CreatedAccount, type LoadedRows } from './accountAssemble';
import { fromDb, LAYOUT } from './accountLayout';
import { placeRows, planAccountRows } from './accountRows';
import { type AccountTable, OWNED_TABLES, PLATFORM_TABLES } from './accountTables';
import type { Account } from './accountTypes';
import { allocatedIds, allocationSql, insertTablesWithUnnest, unnestInsertSql } from './unnestInsert';
import { CONSTRAINT, isUniqueViolation } from '../pgErrors';

export type { CreatedAccount, CreatedConsent, CreatedMetadata } from './accountAssemble';
export type { Account } from './accountTypes';

/**
 * The unique key a second create for the same (supplier, external account number) violates
 * (SQLSTATE 23505). Other unique keys (the account number the caller chose) have other names.
 */
export const ACCOUNT_EXTERNAL_KEY = CONSTRAINT.accountExternalKey;

/** True when `err` is the duplicate-import violation: the account already exists. */
export function isDuplicateAccountError(err: unknown): boolean {
  return isUniqueViolation(err, CONSTRAINT.accountExternalKey);
}

function randomNumber(prefix: string): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
}

/** 'A-' + 8 upper-case hex characters from the CSPRNG. */
export function newAccountNumber(): string {
  return randomNumber('A');
}

export interface InsertAccountInput {
  importSupplier: string;
  externalAccountNumber: string;
  accountNumber: string;
  account: Account;
}

/** How often to draw new user numbers when one drawn is already taken (2^32 space: rare). */
const USER_NUMBER_ATTEMPTS = 5;

function drawUserNumbers(n: number): string[] {
  return Array.from({ length: n }, () => randomNumber('U'));
}

async function takenUserNumbers(db: Knex, numbers: string[]): Promise<number> {
  const r = await db.raw(`SELECT count(*)::int AS n FROM account_users WHERE user_number = ANY(?::text[])`, [numbers]);
  return (r.rows as { n: number }[])[0]!.n;
}

/**
 * Writes the whole account in two statements. The first inserts the accounts row, reserves ids for
 * every other table and checks the drawn user numbers are free; the second writes every other
 * table (see insertTablesWithUnnest). The accounts row goes first and alone so that a duplicate
 * import always fails on ACCOUNT_EXTERNAL_KEY (SQLSTATE 23505, see isDuplicateAccountError), never
 * on some child table's key that happens to be checked earlier.
 *
 * The caller owns the transaction: the dry run rolls it back, the create commits it.
 */
export async function insertAccount(db: Knex, input: InsertAccountInput): Promise<CreatedAccount> {
  let userNumbers = drawUserNumbers(input.account.customers?.length ?? 0);
  const planned = planAccountRows({
    accountNumber: input.accountNumber,
    importSupplier: input.importSupplier,
    externalAccountNumber: input.externalAccountNumber,
    account: input.account,
    userNumbers,
    // One dunning path per account: deriving its id from the unique account number keeps it unique.
    dunningProcessId: `DP-${input.accountNumber.replace(/^A-/, '')}`,
  });
  const psrCodes = (planned.psr_records ?? []).map((p) => (p.elec_industry_code ?? p.gas_industry_code) as string);

  const counts: Record<string, number> = {};
  for (const table of OWNED_TABLES) counts[table] = planned[table]?.length ?? 0;
  const { id: _localId, ...accountColumns } = LAYOUT.accounts.pg;
  const accountInsert = unnestInsertSql({ table: 'accounts', columns: accountColumns, rows: planned.accounts });
  const allocation = allocationSql(counts);
  const first = await db.raw(
    `WITH account AS (${accountInsert.sql} RETURNING id)
     SELECT (SELECT id FROM account) AS account_id,
            (SELECT count(*)::int FROM account_users WHERE user_number = ANY(?::text[])) AS taken_user_numbers,
            -- account_user.psr_records_updated-v1 carries each needs code's description: operators'
            -- reference data (migration 0002) holds them.
            (SELECT json_object_agg(code, description) FROM reference_data
              WHERE kind = 'psr_needs_code' AND code = ANY(?::text[])) AS psr_descriptions
            ${allocation.sql.map((item) => `,\n${item}`).join('')}`,
    [...accountInsert.bindings, userNumbers, psrCodes, ...allocation.bindings] as Knex.RawBinding[],
  );
  const row = (first.rows as Record<string, unknown>[])[0]!;
  const accountId = Number(row.account_id);
  const ids = allocatedIds(row, counts);

  let taken = row.taken_user_numbers as number;
  for (let attempt = 1; taken > 0 || new Set(userNumbers).size !== userNumbers.length; attempt++) {
    if (attempt >= USER_NUMBER_ATTEMPTS) throw new Error('could not draw unused user numbers');
    userNumbers = drawUserNumbers(userNumbers.length);
    taken = await takenUserNumbers(db, userNumbers);
  }
  (planned.account_users ?? []).forEach((u, i) => (u.user_number = userNumbers[i]));
  const descriptions = (row.psr_descriptions ?? {}) as Record<string, string | null>;
  (planned.psr_records ?? []).forEach((p, i) => (p.description = descriptions[psrCodes[i]!] ?? ''));

  planned.accounts[0]!.id = accountId;
  placeRows(planned, ids, accountId);

  await insertTablesWithUnnest(db, [
    ...[...OWNED_TABLES, 'account_references' as const].map((table) => ({
      table,
      columns: LAYOUT[table].pg,
      rows: planned[table] ?? [],
    })),
    // Queued for the digest filler (db/stores/accountDigests.ts), in the same statement.
    { table: 'account_digest_pending', columns: { account_id: 'bigint' }, rows: [{ account_id: accountId }] },
  ]);
  return createdFromRows(planned.accounts[0]!, planned);
}

async function readOwned(db: Knex, accountId: number, tables: readonly AccountTable[]): Promise<LoadedRows> {
  return (await readOwnedOf(db, [accountId], tables)).get(accountId)!;
}

/**
 * The rows of `tables` owned by these accounts, by account id: one SELECT per table, sent together
 * as one simple-protocol query (the ids, integers read from the accounts table, are written into it
 * as an array literal). Each table ordered by id: ids were handed out in payload order, so this is
 * each array's order.
 *
 * The platform's tables (platformTables.ts: 62 of them, empty for a spec-shaped account) are read
 * only where they hold rows of these accounts: the first round trip reads the hand-described tables
 * and asks, in one more statement, which platform tables do (one index probe each); a second reads
 * those, if any. An account of the spec's shape costs one statement more than before, not 62.
 */
async function readOwnedOf(db: Knex, accountIds: readonly number[], tables: readonly AccountTable[]): Promise<Map<number, LoadedRows>> {
  const byAccount = new Map<number, LoadedRows>(accountIds.map((id) => [id, {}]));
  if (accountIds.length === 0 || tables.length === 0) return byAccount;
  for (const id of accountIds) if (!Number.isSafeInteger(id)) throw new Error(`not an account id: ${id}`);
  const ids = `'{${accountIds.join(',')}}'::bigint[]`;
  const select = (t: string) => `SELECT * FROM "${t}" WHERE account_id = ANY(${ids}) ORDER BY id`;
  const read = (list: readonly AccountTable[], results: { rows: Record<string, unknown>[] }[]) =>
    list.forEach((table, i) => {
      for (const loaded of byAccount.values()) loaded[table] = [];
      for (const row of results[i]!.rows) byAccount.get(Number(row.account_id))![table]!.push(fromDb(table, row));
    });
  const hand = tables.filter((t) => !PLATFORM_TABLES.has(t));
  const platform = tables.filter((t) => PLATFORM_TABLES.has(t));
  const probe =
    platform.length === 0
      ? []
      : [`SELECT array_remove(ARRAY[${platform.map((t) => `CASE WHEN EXISTS (SELECT 1 FROM "${t}" WHERE account_id = ANY(${ids})) THEN '${t}' END`).join(', ')}], NULL) AS present`];
  const results = await rawResults(db, [...hand.map(select), ...probe].join(';\n'));
  read(hand, results);
  for (const t of platform) for (const loaded of byAccount.values()) loaded[t] = [];
  const present = probe.length === 0 ? [] : ((results[hand.length]!.rows[0]!.present as string[]) ?? []);
  if (present.length > 0) read(present, await rawResults(db, present.map(select).join(';\n')));
  return byAccount;
}

/** The result sets of a multi-statement simple query, one per statement. */
async function rawResults(db: Knex, sql: string): Promise<{ rows: Record<string, unknown>[] }[]> {
  const answer = (await db.raw(sql)) as { rows: Record<string, unknown>[] } | { rows: Record<string, unknown>[] }[];
  return Array.isArray(answer) ? answer : [answer];
}

/** The tables createdFromRows (accountAssemble.ts) reads: what the import's events and registration need. */
const CREATED_TABLES: readonly AccountTable[] = [
  'account_users',
  'psr_records',
  'meter_points',
  'agreements',
  'account_metadata',
  'account_campaigns',
  'dunning_paths',
  'ledgers',
  'consents',
  'account_user_consents',
  'account_user_metadata',
  'account_business',
  'deposit_agreements',
  'property_metadata',
];

/** What insertAccount returned, read back (a retried create finding the account already made). */
export async function findAccountByExternal(
  db: Knex,
  importSupplier: string,
  externalAccountNumber: string,
): Promise<CreatedAccount | null> {
  const account = await db('accounts')
    .where({ import_supplier: importSupplier, external_account_number: externalAccountNumber })
    .first();
  if (!account) return null;
  const row = fromDb('accounts', account);
  return createdFromRows(row, await readOwned(db, row.id as number, CREATED_TABLES));
}

/**
 * The payload reassembled from the tables: the proof that every field landed. Absent optional
 * fields and empty optional arrays both read back as absent.
 */
export async function loadAccount(db: Knex, accountNumber: string): Promise<Account | null> {
  const account = await db('accounts').where({ number: accountNumber }).first();
  if (!account) return null;
  const row = fromDb('accounts', account);
  const rows = await readOwned(db, row.id as number, OWNED_TABLES);
  const references = (await db('account_references')
    .where({ import_supplier: row.import_supplier, external_account_number: row.external_account_number })
    .orderBy('id')) as Record<string, unknown>[];
  return accountFromRows(row, rows, references.map((r) => fromDb('account_references', r)));
}

/**
 * The accounts of one supplier with these external account numbers, each reassembled from the
 * tables as loadAccount does (the account as stored, not the stored payload), in three round
 * trips for all of them (the accounts rows; one SELECT per owned table sent as one query; the
 * references): the reconciliation's bulk digest reads up to 500 at once. Numbers with no account
 * are absent from the map.
 */
export async function loadAccountsByExternal(
  db: Knex,
  importSupplier: string,
  externalAccountNumbers: readonly string[],
): Promise<Map<string, Account>> {
  const out = new Map<string, Account>();
  if (externalAccountNumbers.length === 0) return out;
  const accounts = ((await db('accounts')
    .where({ import_supplier: importSupplier })
    .whereIn('external_account_number', [...externalAccountNumbers])) as Record<string, unknown>[]).map((a) => fromDb('accounts', a));
  if (accounts.length === 0) return out;
  const byAccount = await readOwnedOf(
    db,
    accounts.map((a) => a.id as number),
    OWNED_TABLES,
  );
  const refs = (await db('account_references')
    .where({ import_supplier: importSupplier })
    .whereIn('external_account_number', accounts.map((a) => a.external_account_number as string))
    .orderBy('id')) as Record<string, unknown>[];
  const refsByExternal = new Map<string, Record<string, unknown>[]>();
  for (const r of refs) {
    const key = r.external_account_number as string;
    const list = refsByExternal.get(key);
    if (list) list.push(fromDb('account_references', r));
    else refsByExternal.set(key, [fromDb('account_references', r)]);
  }
  for (const a of accounts) {
    const external = a.external_account_number as string;
    out.set(external, accountFromRows(a, byAccount.get(a.id as number)!, refsByExternal.get(external) ?? []));
  }
  return out;
}

/**
 * Removes the account and everything it owns in one statement: each table by its account_id index
 * (bulk, rather than the per-row cascade from parent to child), then the accounts row. The
 * cascades that fire at the end of the statement find nothing left. References (migration 0002's
 * table) are found by supplier and external number, the key that table indexes.
 */
export async function deleteAccount(db: Knex, accountId: number): Promise<void> {
  const deletes = [...OWNED_TABLES].reverse().map((table, i) => `d${i} AS (DELETE FROM "${table}" WHERE account_id = ?)`);
  await db.raw(
    `WITH ${deletes.join(',\n')},
     refs AS (
       DELETE FROM account_references r USING accounts a
       WHERE a.id = ? AND r.import_supplier = a.import_supplier AND r.external_account_number = a.external_account_number
     )
     DELETE FROM accounts WHERE id = ?`,
    [...deletes.map(() => accountId), accountId, accountId],
  );
}
