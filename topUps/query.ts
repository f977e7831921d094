import type { Issue } from '../account/issues';

export type TransactionQuery =
  | { ok: true; checkPreviouslyAdded: boolean; forceAddToCurrentStatement: boolean }
  | { ok: false; errors: Issue[] };

const FLAGS = { check_previously_added: 'checkPreviouslyAdded', force_add_to_current_statement: 'forceAddToCurrentStatement' } as const;

/** The query flags of transactions/create, both default true as the platform documents them. */
export function parseTransactionQuery(query: Record<string, string | string[] | undefined>): TransactionQuery {
  const errors: Issue[] = [];
  const out = { checkPreviouslyAdded: true, forceAddToCurrentStatement: true };
  for (const [key, raw] of Object.entries(query)) {
    if (!(key in FLAGS)) {
      errors.push({ detail: `Unknown query parameter ${key}.`, code: 'unknown_field', attr: key });
      continue;
    }
    const value = Array.isArray(raw) ? undefined : raw?.toLowerCase();
    if (value === 'true' || value === '1') out[FLAGS[key as keyof typeof FLAGS]] = true;
    else if (value === 'false' || value === '0') out[FLAGS[key as keyof typeof FLAGS]] = false;
    else errors.push({ detail: `${key} must be true or false.`, code: 'invalid', attr: key });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, ...out };
}
