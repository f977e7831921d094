/**
 * Prints the migration the committed account/platformAccount.json needs: the storage that
 * db/stores/platformTables.ts derives from it (what scripts/platformTables.ts prints), less what
 * migration 0020 created and the platform migrations after it added (each exports its ADDED and
 * TABLES). Prints the columns to add (to existing tables and to 0020's), the tables to create
 * (parents first), and what the description no longer has or types otherwise (a migration
 * decides what to do with stored data; this script never drops anything). Nothing to print means
 * the database already holds the description: test/integration/accountTables.test.ts agrees.
 *
 *   npm run platform:migration
 */
import * as m0020 from '../db/migrations/0020_whole_platform_account';
import * as m0022 from '../db/migrations/0022_business_contracts_discriminator';
import { ACCOUNT_TABLES } from '../db/stores/accountTables';
import { platformTables } from '../db/stores/platformTables';

type Columns = Record<string, string>;
interface Frozen {
  ADDED: Record<string, Columns>;
  TABLES: readonly { name: string; parent: string | null; parentColumn: string | null; one: boolean; columns: Columns }[];
}
/** The platform migrations, oldest first. A new one goes here. */
const MIGRATIONS: readonly Frozen[] = [m0020, m0022];

export interface MigrationPlan {
  added: Record<string, Columns>;
  tables: Frozen['TABLES'][number][];
  /** `table.column` (or `table`) the description no longer has, or has with another type. */
  gone: string[];
}

/** The difference between the storage the description asks for and the frozen migrations'. */
export function nextMigration(): MigrationPlan {
  const stored = new Map<string, Columns>();
  const storedTables = new Set<string>();
  for (const m of MIGRATIONS) {
    for (const [table, columns] of Object.entries(m.ADDED)) stored.set(table, { ...stored.get(table), ...columns });
    for (const t of m.TABLES) {
      storedTables.add(t.name);
      stored.set(t.name, { ...stored.get(t.name), ...t.columns });
    }
  }
  const p = platformTables(ACCOUNT_TABLES);
  const wanted = new Map<string, Columns>(Object.entries(p.added) as [string, Columns][]);
  for (const [name, s] of Object.entries(p.tables)) wanted.set(name, s.columns as Columns);

  const plan: MigrationPlan = { added: {}, tables: [], gone: [] };
  for (const [name, s] of Object.entries(p.tables)) {
    if (storedTables.has(name)) continue;
    plan.tables.push({ name, parent: s.parent ?? null, parentColumn: s.parent ? p.parentColumns[s.parent]! : null, one: s.one === true, columns: s.columns as Columns });
  }
  for (const [table, columns] of wanted) {
    if (!stored.has(table) && !(table in p.added)) continue;
    const have = stored.get(table) ?? {};
    for (const [c, type] of Object.entries(columns)) {
      if (have[c] === undefined) (plan.added[table] ??= {})[c] = type;
      else if (have[c] !== type) plan.gone.push(`${table}.${c} (${have[c]} -> ${type})`);
    }
  }
  for (const [table, columns] of stored) {
    if (!wanted.has(table)) plan.gone.push(table);
    else for (const c of Object.keys(columns)) if (wanted.get(table)![c] === undefined) plan.gone.push(`${table}.${c}`);
  }
  return plan;
}

function main(): void {
  const plan = nextMigration();
  const empty = Object.keys(plan.added).length === 0 && plan.tables.length === 0 && plan.gone.length === 0;
  if (empty) {
    process.stdout.write('The migrations hold account/platformAccount.json: no migration needed.\n');
    return;
  }
  process.stdout.write(
    `// The next migration's data (as db/migrations/0020_whole_platform_account.ts holds it):\n` +
      `export const ADDED: Record<string, Record<string, Type>> = ${JSON.stringify(plan.added, null, 1)};\n` +
      `export const TABLES: { name: string; parent: string | null; parentColumn: string | null; one: boolean; columns: Record<string, Type> }[] = ${JSON.stringify(plan.tables, null, 1)};\n` +
      (plan.gone.length ? `// No longer in the description, or typed otherwise (decide what becomes of their data):\n${plan.gone.map((g) => `//   ${g}`).join('\n')}\n` : ''),
  );
}

if (require.main === module) main();
