import { isIsoDate } from '../account/dates';

/** An error item of the validation shape (docs/spec/RULES.md): `{detail, code, attr}`. */
export interface QueryIssue {
  detail: string;
  code: 'invalid_date' | 'unknown_field';
  attr: string;
}

export type ParsedRegistrationQuery = { ok: true; supplyStartDate: string | null } | { ok: false; errors: QueryIssue[] };

const KNOWN = new Set(['supply_start_date']);

/**
 * The query string of send-registration-flows. Only documented parameters may be sent (an unknown
 * one may acquire meaning later, so it is refused rather than ignored); every issue is reported.
 */
export function parseRegistrationQuery(query: Record<string, string | string[] | undefined>): ParsedRegistrationQuery {
  const errors: QueryIssue[] = [];
  for (const key of Object.keys(query)) {
    if (!KNOWN.has(key)) errors.push({ detail: `Unknown query parameter ${key}.`, code: 'unknown_field', attr: key });
  }
  const raw = query.supply_start_date;
  let supplyStartDate: string | null = null;
  if (Array.isArray(raw)) {
    errors.push({ detail: 'Give supply_start_date once.', code: 'invalid_date', attr: 'supply_start_date' });
  } else if (raw !== undefined) {
    if (isIsoDate(raw)) supplyStartDate = raw;
    else errors.push({ detail: 'Date has wrong format or is not a real day; use YYYY-MM-DD.', code: 'invalid_date', attr: 'supply_start_date' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, supplyStartDate };
}
