import { PLATFORM_ACCOUNT, type PlatformField } from '../../account/platformAccount';
import { platformChildren } from '../../account/platformSchema';
import type { ColumnType, TableSpec } from './accountTableSpec';
import { TOP_LEVEL_LEDGER_FIELDS } from './ledgerForm';

/**
 * The storage of the platform's fields that accountTables.ts does not describe by hand, derived
 * from the platform's Account as data (account/platformAccount.json), as account/platformSchema.ts
 * derives their schema:
 * - a scalar field is a column of the table of its object, typed by the document (a date `date`, a
 *   date-time `timestamptz`, a decimal `numeric` with its text, an integer `bigint`, a boolean);
 * - an array of objects is a table of its own (one row per item, in order), an object with fields
 *   a table of one row (`one`: present, even empty, exactly when sent), each under its parent's row;
 * - a list of scalars, a free-form object and a field of no type (the document's dynamic choice
 *   sets) are `jsonb`, kept as sent.
 * Relational all the way down, so a rule, a listing, a consumer or an operator can query any value
 * (`SELECT … FROM meter_point_configuration_periods WHERE measurement_class = 'A'`), and the
 * read-back compares every field. Table names: the parent table's row name, then the field
 * (`meter_point_configuration_periods`, `account_fit_installations`); the account's own arrays keep
 * their name (`complaints`), its own objects are `account_<field>` (`account_fit`). Every column is nullable: the schema, not the table, holds
 * the document's required fields. db/migrations/0020_whole_platform_account.ts made these tables
 * (test/integration/accountTables.test.ts holds it to this description).
 */

/** Each hand-described table (accountTables.ts) and the platform path of the object one of its rows holds. */
export const PLATFORM_PATH_OF_TABLE: Readonly<Record<string, string>> = {
  accounts: '',
  account_users: 'customers.*',
  account_user_preferences: 'customers.*.customer_preferences',
  psr_records: 'customers.*.psr.*',
  properties: 'supply_addresses.*',
  property_administrators: 'supply_addresses.*.property_administrators.*',
  meter_points: 'supply_addresses.*.meter_points.*',
  agreements: 'supply_addresses.*.meter_points.*.agreements.*',
  smart_refusal_interests: 'supply_addresses.*.meter_points.*.smart_refusal_interest',
  eac_history: 'supply_addresses.*.meter_points.*.eac_history.*',
  aq_history: 'supply_addresses.*.meter_points.*.aq_history.*',
  meters: 'supply_addresses.*.meter_points.*.meters.*',
  registers: 'supply_addresses.*.meter_points.*.meters.*.registers.*',
  transfer_readings: 'supply_addresses.*.meter_points.*.meters.*.transfer_readings.*',
  reading_history: 'supply_addresses.*.meter_points.*.meters.*.reading_history.*',
  prepay_details: 'supply_addresses.*.meter_points.*.meters.*.prepay_details',
  ledger_transactions: 'current_statement_transactions.*',
  payment_schedules: 'payment_schedules.*',
  payment_instructions: 'payment_instructions.*',
  payment_preferences: 'payment_preferences.*',
  notes: 'notes.*',
  note_documents: 'notes.*.document_paths.*',
  statements: 'statements.*',
  warm_home_discounts: 'warm_home_discount.*',
  dunning_paths: 'dunning_path',
  debts: 'debts.*',
  aged_debts: 'debts.*.aged_debt.*',
  account_campaigns: 'account_campaigns.*',
  account_metadata: 'metadata.*',
  account_references: 'references.*',
};

/** The Account's fields stored by another path than their own (db/stores/ledgerForm.ts: the top-level ledger form). */
const STORED_ELSEWHERE: Readonly<Record<string, readonly string[]>> = { accounts: TOP_LEVEL_LEDGER_FIELDS };

/** The name of one row of a hand-described table, for its children's names and parent columns. */
const ROW_NAME: Readonly<Record<string, string>> = {
  accounts: 'account',
  account_users: 'account_user',
  account_user_preferences: 'account_user_preference',
  psr_records: 'psr_record',
  properties: 'property',
  property_administrators: 'property_administrator',
  meter_points: 'meter_point',
  agreements: 'agreement',
  meters: 'meter',
  registers: 'register',
  reading_history: 'reading',
  ledger_transactions: 'ledger_transaction',
  payment_schedules: 'payment_schedule',
  notes: 'note',
  statements: 'statement',
  debts: 'debt',
};

const MAX_NAME = 50; // `<table>_id_seq` and index names must fit PostgreSQL's 63 characters.

function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('sses') || name.endsWith('ches')) return name.slice(0, -2);
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return name;
}

function columnType(f: PlatformField): ColumnType {
  const type = f.type[0];
  const format = f.format?.[0];
  if (type === 'string') {
    if (format === 'date') return 'date';
    if (format === 'date-time') return 'timestamptz';
    if (format === 'decimal') return 'decimal';
    return 'text';
  }
  if (type === 'integer') return 'bigint';
  if (type === 'boolean') return 'boolean';
  return 'jsonb';
}

function hasFields(path: string): boolean {
  return platformChildren(path).size > 0;
}

export interface PlatformTables {
  /** Columns added to hand-described tables: table → column → type. */
  added: Record<string, Record<string, ColumnType>>;
  /** New tables, parents before children. */
  tables: Record<string, TableSpec & { platformPath: string }>;
  /** The parent column of each new table that has children: table → `<row name>_id`. */
  parentColumns: Record<string, string>;
}

/**
 * Works out the platform's tables and columns from the description. `described`: the hand-made
 * descriptor (accountTables.ts) — the payload fields each of its tables already stores.
 */
export function platformTables(described: Readonly<Record<string, TableSpec>>): PlatformTables {
  const out: PlatformTables = { added: {}, tables: {}, parentColumns: {} };
  const rowName = (table: string) => ROW_NAME[table] ?? (out.tables[table]?.one ? table : singular(table));
  const taken = new Set(Object.keys(described));

  /** Column names a platform field may not take in `table`: its keys, parent column and hand-described columns. */
  const reserved = (table: string): Set<string> => {
    const names = new Set(['id', 'account_id', 'position']);
    const spec = described[table] ?? out.tables[table]!;
    const parent = spec.parent;
    if (parent) names.add(out.parentColumns[parent] ?? `${rowName(parent)}_id`);
    for (const [name, def] of Object.entries(spec.columns)) names.add(name).add(`${name}_text`);
    if (spec.split) names.add(spec.split.column);
    return names;
  };

  const storedFields = (table: string): Set<string> => {
    const fields = new Set<string>(STORED_ELSEWHERE[table] ?? []);
    const spec = described[table]!;
    for (const [name, def] of Object.entries(spec.columns)) {
      const c = typeof def === 'string' ? { type: def } : def;
      const field = c.field ?? ('write' in c && c.write ? null : name);
      if (field) fields.add(field.split('.')[0]!);
    }
    for (const [child, s] of Object.entries(described)) {
      if (child === 'accounts' || (s.parent ?? 'accounts') !== table) continue;
      if (s.path) fields.add(s.path);
      for (const p of Object.values(s.split?.paths ?? {})) fields.add(p);
    }
    return fields;
  };

  const walk = (table: string, path: string, known: Set<string>, columns: Record<string, ColumnType>) => {
    for (const [name, p] of platformChildren(path)) {
      if (known.has(name)) continue;
      const f = PLATFORM_ACCOUNT[p]!;
      const isArray = f.type[0] === 'array';
      if ((f.type[0] === 'object' || isArray) && hasFields(p)) {
        // The account's own objects are `account_<field>` (account_fit, account_business): one row per account.
        const child =
          table === 'accounts' ? (taken.has(name) || !isArray ? `account_${name}` : name) : `${rowName(table)}_${name}`;
        if (taken.has(child) || child.length > MAX_NAME) throw new Error(`platform table name ${child} is taken or too long`);
        taken.add(child);
        if (table !== 'accounts') out.parentColumns[table] ??= `${rowName(table)}_id`;
        const childColumns: Record<string, ColumnType> = {};
        out.tables[child] = {
          ...(table === 'accounts' ? {} : { parent: table }),
          path: name,
          ...(isArray ? {} : { one: true }),
          // A list the platform requires inside one of its own objects (a complaint's
          // complaint_contacts) is read back even when empty, as the schema requires it there;
          // on the spec's objects every platform field is optional (account/platformSchema.ts).
          ...(isArray && f.required && !described[table] ? { required: true } : {}),
          columns: childColumns,
          platformPath: p,
        };
        walk(child, p, new Set(), childColumns);
      } else {
        if (columns[name] !== undefined || reserved(table).has(name)) throw new Error(`platform column ${table}.${name} is taken`);
        columns[name] = columnType(f);
      }
    }
  };

  for (const [table, path] of Object.entries(PLATFORM_PATH_OF_TABLE)) {
    if (!described[table]) throw new Error(`no table ${table}`);
    const columns: Record<string, ColumnType> = {};
    walk(table, path, storedFields(table), columns);
    if (Object.keys(columns).length > 0) out.added[table] = columns;
  }
  return out;
}
