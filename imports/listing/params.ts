/**
 * The listing's optional query parameters: `limit` (page size) and `after` (an opaque cursor from
 * a previous page's `Link: <...>; rel="next"`). Neither: the platform's plain, complete array.
 */
export const MAX_PAGE = 10_000;

export interface QueryIssue {
  detail: string;
  code: 'invalid' | 'min_value' | 'max_value' | 'unknown_field';
  attr: string;
}

export type ListingParams = { ok: true; limit?: number; afterId?: string } | { ok: false; errors: QueryIssue[] };

const KNOWN = new Set(['limit', 'after']);

/** The cursor is the last id seen, base64url-wrapped so clients treat it as opaque. */
export function encodeCursor(id: string): string {
  return Buffer.from(`ip:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  const m = /^ip:([1-9]\d{0,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? m[1]! : null;
}

export function parseListingParams(query: Record<string, string | string[] | undefined>): ListingParams {
  const errors: QueryIssue[] = [];
  for (const key of Object.keys(query)) {
    if (!KNOWN.has(key)) errors.push({ detail: `Unknown query parameter ${key}.`, code: 'unknown_field', attr: key });
  }
  let limit: number | undefined;
  const rawLimit = query.limit;
  if (rawLimit !== undefined) {
    if (Array.isArray(rawLimit) || !/^\d{1,9}$/.test(rawLimit)) {
      errors.push({ detail: 'limit must be a whole number.', code: 'invalid', attr: 'limit' });
    } else if (Number(rawLimit) < 1) {
      errors.push({ detail: 'limit must be at least 1.', code: 'min_value', attr: 'limit' });
    } else if (Number(rawLimit) > MAX_PAGE) {
      errors.push({ detail: `limit must be at most ${MAX_PAGE}.`, code: 'max_value', attr: 'limit' });
    } else limit = Number(rawLimit);
  }
  let afterId: string | undefined;
  const rawAfter = query.after;
  if (rawAfter !== undefined) {
    const id = Array.isArray(rawAfter) ? null : decodeCursor(rawAfter);
    if (id === null) errors.push({ detail: 'after must be a cursor from a previous page.', code: 'invalid', attr: 'after' });
    else afterId = id;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, limit, afterId };
}
