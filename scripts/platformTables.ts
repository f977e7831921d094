/**
 * Prints, as JSON, the storage that the platform's Account asks for beyond the hand-described tables
 * (db/stores/platformTables.ts works it out from account/platformAccount.json): the columns added to
 * existing tables and the new tables, each with its parent, one-row flag and typed columns. A
 * migration holds this data frozen (db/migrations/0020_whole_platform_account.ts holds the first);
 * after account/platformAccount.json changes, the difference from the last migration's data is
 * the next migration's. test/integration/accountTables.test.ts fails until the database agrees.
 *
 *   npx tsx scripts/platformTables.ts
 */
import { ACCOUNT_TABLES } from '../db/stores/accountTables';
import { platformTables } from '../db/stores/platformTables';

const p = platformTables(ACCOUNT_TABLES);
const tables = Object.entries(p.tables).map(([name, s]) => ({
  name,
  parent: s.parent ?? null,
  parentColumn: s.parent ? p.parentColumns[s.parent]! : null,
  one: s.one === true,
  columns: s.columns,
}));
process.stdout.write(`${JSON.stringify({ added: p.added, tables }, null, 1)}\n`);
