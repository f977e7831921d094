/**
 * One error of a map run, traced to where it came from: the source file, its physical line, the
 * column and the legacy value; the mapping rule (its line, the Account field it writes); and, for
 * the service's own validation, the code and attr the API would answer. `account` is the legacy
 * key of the account it blocks, null when it blocks none (an orphan row) or the whole run (a
 * file that cannot be read).
 */
export interface MapIssue {
  code: string;
  account: string | null;
  file?: string;
  line?: number;
  column?: string;
  value?: string;
  /** The mapping's line of the rule that produced the value, and the Account field it writes. */
  ruleLine?: number;
  field?: string;
  attr?: string;
  detail: string;
}

/** Where a value came from: carried with each value until the account is validated. */
export interface Source {
  file: string;
  line: number;
  column?: string;
  value?: string;
  ruleLine?: number;
  field?: string;
}

/** Codes of the map's own errors (the validator's codes are the API's: http/errors.ts). */
export const MAP_CODES = {
  fileMissing: 'map_file_missing',
  fileEmpty: 'map_file_empty',
  fileEncoding: 'map_file_encoding',
  unterminatedQuote: 'map_file_unterminated_quote',
  headerMismatch: 'map_file_header_mismatch',
  columnMissing: 'map_column_missing',
  columnCount: 'map_row_column_count',
  recordType: 'map_record_type_unknown',
  recordShort: 'map_record_too_short',
  unconvertible: 'map_value_unconvertible',
  unmapped: 'map_code_unmapped',
  orphan: 'map_orphan_row',
  duplicateKey: 'map_duplicate_key',
  checkFailed: 'map_check_failed',
} as const;
