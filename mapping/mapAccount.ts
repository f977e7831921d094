import { inTranche, type Tranche } from '../lib/tranche';
import { accountRows, type RawAccount, type RowLayout } from './accountRows';
import { AccountBuilder } from './build';
import type { MapIssue } from './issues';
import { rowsUsed } from './objectStats';
import { ruleColumn, tracedObject, type AccountTrace } from './rules';
import type { Mapping } from './spec';
import type { MapValidator } from './validate';

/** One account mapped: what mapping/run.ts counts, reports and writes, in the book's order. */
export type AccountOutcome = (
  | { outside: true }
  | {
      outside: false;
      /** Its errors (the mapping's, then the validator's, each traced to its source row): quarantined when any. */
      errors: MapIssue[];
      /** The line to write: the account's JSON for the book, or its quarantine record when it has errors. */
      line: string;
    }
) & {
  /** The rows of each table the account was built from (mapping/objectStats.ts). */
  rows: Record<string, number>;
};

/**
 * Builds one account from its rows (mapping/build.ts), keeps it to the tranche, runs the service's
 * validator on it and writes its line: the work of an account, done in a worker thread
 * (mapping/threads.ts) or in the run's own thread, with the same result byte for byte.
 */
export class AccountMapper {
  constructor(
    private readonly mapping: Mapping,
    private readonly layout: RowLayout,
    private readonly validate: MapValidator | null,
    private readonly tranche?: Tranche,
  ) {}

  /** This mapper for the extract's files as the store numbered them (known once the extract is loaded). */
  withFiles(files: string[]): AccountMapper {
    return new AccountMapper(this.mapping, { ...this.layout, files }, this.validate, this.tranche);
  }

  async map(raw: RawAccount): Promise<AccountOutcome> {
    const own = accountRows(this.layout, raw);
    const { account, trace } = new AccountBuilder(this.mapping, own.tables).build(own.account);
    const number = typeof account.external_account_number === 'string' ? account.external_account_number : trace.account;
    const rows = rowsUsed(trace);
    if (this.tranche && !inTranche(this.tranche, number)) return { outside: true, rows };
    const errors = [...trace.issues];
    if (errors.length === 0 && this.validate) {
      for (const e of await this.validate(account)) errors.push({ ...traced(trace, e.attr), code: e.code, account: trace.account, attr: e.attr, detail: e.detail });
    }
    // The whole account is held back with its errors: never written short of a row.
    if (errors.length > 0) return { outside: false, errors, line: `${JSON.stringify({ account: trace.account, external_account_number: number, errors, mapped: account })}\n`, rows };
    return { outside: false, errors, line: `${JSON.stringify(account)}\n`, rows };
  }
}

/** The row, column and rule of the value at a validation error's attr (or of the nearest object above it). */
function traced(trace: AccountTrace, attr: string): Partial<MapIssue> {
  const parts = attr.split('.');
  for (let n = parts.length; n >= 0; n--) {
    const at = tracedObject(trace, parts.slice(0, n).join('.'));
    if (!at) continue;
    const rule = n < parts.length ? at.node.fields.get(parts[n]) : undefined;
    const column = ruleColumn(rule);
    const field = rule ? (at.node.path ? `${at.node.path}.${parts[n]}` : parts[n]) : at.node.path;
    return { file: at.row.file, line: at.row.line, column, value: column === undefined ? undefined : at.row.values[column], ruleLine: rule?.line ?? at.node.line, field };
  }
  return {};
}
