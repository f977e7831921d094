import { TOP_LEVEL_LEDGER_FIELDS } from '../../account/rules/ledgers';
import type { Account } from './accountTypes';

/**
 * The platform's top-level ledger form (issue 35, area 9): an Account may carry one ledger's
 * transactions and last statement at its top, where the spec puts them under `ledgers[]`. Both
 * forms are stored alike — one row of `ledgers`, its transactions in `ledger_transactions` — so a
 * listing, a rule or an operator finds the history in one place whichever form it came in; the
 * row's `top_level_form` says which form to read it back in (the digest of the account as stored
 * is then the digest of the account as sent). Validation refuses an account with both
 * (ledger_forms_mixed), so the store never has to choose.
 */
// The fields of the form: the validator's list (account/rules/ledgers.ts), one list for both.
export { TOP_LEVEL_LEDGER_FIELDS };

/** The payload key of the ledger made from the top-level form (no caller can send it: the schema refuses it). */
export const TOP_LEVEL_MARK = '__top_level_form';

type Json = Record<string, unknown>;

/** The account with its top-level ledger, if any, as `ledgers[0]` marked; others unchanged. */
export function toStoredLedgers(account: Account): Account {
  const a = account as unknown as Json;
  if (!TOP_LEVEL_LEDGER_FIELDS.some((k) => a[k] !== undefined && a[k] !== null)) return account;
  if (Array.isArray(a.ledgers) && a.ledgers.length > 0) throw new Error('an account with both ledger forms (validation refuses it: ledger_forms_mixed)');
  const out: Json = {};
  const ledger: Json = { [TOP_LEVEL_MARK]: true };
  for (const [k, v] of Object.entries(a)) {
    if ((TOP_LEVEL_LEDGER_FIELDS as readonly string[]).includes(k)) {
      if (v !== null && v !== undefined) ledger[k] = v;
    } else out[k] = v;
  }
  out.ledgers = [ledger];
  return out as unknown as Account;
}

/** The inverse of toStoredLedgers, on an account read back. */
export function fromStoredLedgers(account: Account): Account {
  const a = account as unknown as Json;
  const ledgers = a.ledgers as Json[] | undefined;
  if (!ledgers || ledgers.length !== 1 || ledgers[0]![TOP_LEVEL_MARK] !== true) return account;
  const { ledgers: _ledgers, ...out } = a;
  for (const k of TOP_LEVEL_LEDGER_FIELDS) if (ledgers[0]![k] !== undefined) out[k] = ledgers[0]![k];
  return out as unknown as Account;
}
