/**
 * The mapping as the engine reads it, once loaded from YAML (mapping/load.ts). Every part keeps the
 * line of the mapping it came from, so an error names the rule a person reviews in git.
 */

/** How one legacy column's text becomes a value (mapping/convert.ts). */
export interface ColumnSpec {
  name: string;
  line: number;
  /** `json`: the text is a JSON value, taken as it is (an extract written by `generate --legacy-extract`). */
  type: 'string' | 'integer' | 'decimal' | 'date' | 'datetime' | 'boolean' | 'json';
  /** Dates: dd/mm/yyyy, yyyymmdd, yyyy-mm-dd; datetimes: `dd/mm/yyyy hh:mm` read as London time. */
  format?: string;
  /** Decimals: the text is in pence (or hundredths) and becomes pounds. */
  pence?: boolean;
  /** Decimals: the text has this many implied decimal places (fixed-width amounts). */
  impliedDecimals?: number;
  decimalComma?: boolean;
  /** Decimals: another column holds the sign (`-`/`+`, `DR`/`CR`). */
  signColumn?: string;
  /** Booleans: the legacy texts for true and false (default Y / N). */
  trueText?: string;
  falseText?: string;
  /** Empty text means no value (null) rather than an empty string. */
  emptyIsNull: boolean;
  check?: { min?: number; max?: number; pattern?: RegExp; in?: string[] };
  /** Fixed width: 1-based start and length. */
  start?: number;
  length?: number;
}

export interface TableSpec {
  name: string;
  line: number;
  files: string;
  format: 'csv' | 'fixed';
  encoding: 'utf-8' | 'windows-1252' | 'iso-8859-1';
  delimiter: string;
  quote: string;
  /** Fixed width: the record type's position and the codes of data, header and trailer records. */
  recordType?: { start: number; length: number; data: string; header?: string; trailer?: string };
  /** Columns whose values are unique in the table (a duplicate is an error on its account). */
  key?: string[];
  columns: Map<string, ColumnSpec>;
}

export type Condition =
  | { op: 'in' | 'not_in'; column: string; values: string[]; line: number }
  | { op: 'empty' | 'not_empty'; column: string; line: number }
  | { op: 'all' | 'any'; of: Condition[]; line: number };

/** One field's rule (mapping/rules.ts evaluates it on a row and its parents). */
export type Rule =
  | { kind: 'const'; value: unknown; line: number }
  | { kind: 'column'; column: string; line: number }
  | { kind: 'parent'; column: string; up: number; line: number }
  | { kind: 'map'; column: string; table: Map<string, unknown>; fallback: 'fail' | 'default' | 'pass'; default?: unknown; unconfirmed: boolean; line: number }
  | { kind: 'concat'; parts: Rule[]; separator: string; skipEmpty: boolean; line: number }
  | { kind: 'split'; column: string; separator: string; part: number | 'rest'; line: number }
  | { kind: 'when'; condition: Condition; then: Rule; else: Rule; line: number }
  | { kind: 'object'; node: ObjectNode; line: number }
  | { kind: 'list'; node: ListNode; line: number };

export interface ObjectNode {
  /** The Account path of this object (`supply_addresses.*.meter_points.*`; '' for the account). */
  path: string;
  fields: Map<string, Rule>;
  line: number;
}

/** A nested list: the rows of a child table joined to the parent row on its keys. */
export interface ListNode extends ObjectNode {
  table: string;
  /** child column → parent column. */
  join: [string, string][];
  order: string[];
  /** Rows equal in these columns are one item (the first in order). */
  distinct?: string[];
  where?: Condition;
}

export interface Mapping {
  /** Where relative file names (extract globs, conversion table files) are read from. */
  dir: string;
  tables: Map<string, TableSpec>;
  account: ListNode;
}
