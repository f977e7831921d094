import type { Knex } from 'knex';

/**
 * The totals of every account imported for one supplier (an accounts row whose import is
 * PROCESSED), counted in PostgreSQL in one statement: accounts, customers, meter points, meters,
 * registers, the sum of the ledger balances and of the aged debts, exact (numeric sums, as text).
 * The same totals `data-import reconcile` works out for each account of a book
 * (cli/reconcile/totals.ts accountTotals), so the two can be compared, and the supplier's accounts
 * outside a book known without reading them one by one (issue 40).
 */
export interface SupplierTotals {
  accounts: number;
  customers: number;
  meter_points: number;
  meters: number;
  registers: number;
  ledger_balances: string;
  debts: string;
}

export async function supplierTotals(db: Knex, importSupplier: string): Promise<SupplierTotals> {
  const owned = (table: string) => `(SELECT count(*) FROM ${table} t WHERE t.account_id IN (SELECT id FROM imported))`;
  const summed = (table: string, column: string) => `(SELECT coalesce(sum(t.${column}), 0)::text FROM ${table} t WHERE t.account_id IN (SELECT id FROM imported))`;
  const { rows } = await db.raw<{ rows: Record<string, string>[] }>(
    `WITH imported AS MATERIALIZED (
       SELECT a.id FROM accounts a
       JOIN import_processes p ON p.import_supplier = a.import_supplier AND p.external_account_number = a.external_account_number AND p.status = 'PROCESSED'
       WHERE a.import_supplier = ?
     )
     SELECT (SELECT count(*) FROM imported) AS accounts,
            ${owned('account_users')} AS customers,
            ${owned('meter_points')} AS meter_points,
            ${owned('meters')} AS meters,
            ${owned('registers')} AS registers,
            ${summed('ledgers', 'ledger_balance')} AS ledger_balances,
            ${summed('aged_debts', 'debt_amount')} AS debts`,
    [importSupplier],
  );
  const r = rows[0]!;
  return {
    accounts: Number(r.accounts),
    customers: Number(r.customers),
    meter_points: Number(r.meter_points),
    meters: Number(r.meters),
    registers: Number(r.registers),
    ledger_balances: r.ledger_balances!,
    debts: r.debts!,
  };
}
