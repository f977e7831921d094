import { Type, type Static } from '@sinclair/typebox';
import { ajv } from '../../account/ajv';

/**
 * The listing's optional query parameters: `limit` (page size) and `after` (an opaque cursor from
 * a previous page's `Link: <...>; rel="next"`). Neither: the platform's plain, complete array.
 * Checked by the one query checker (http/validation.ts `queryChecker`) from ListingQuery.
 */
export const MAX_PAGE = 10_000;

/** The cursor is the last id seen, base64url-wrapped so clients treat it as opaque. */
export function encodeCursor(id: string): string {
  return Buffer.from(`ip:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  const m = /^ip:([1-9]\d{0,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? m[1]! : null;
}

/**
 * The cursor's format, registered on the checker's ajv beside the schema that names it (so the
 * format is known wherever the schema is): a text decodeCursor reads. A value it does not read is
 * `invalid` (account/errors.ts: a format without a code of its own).
 */
const CURSOR_FORMAT = 'import-process-cursor';
ajv.addFormat(CURSOR_FORMAT, { type: 'string', validate: (v: string) => decodeCursor(v) !== null });

export const ListingQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `Page size, 1-${MAX_PAGE}.` })),
    after: Type.Optional(Type.String({ format: CURSOR_FORMAT, description: "Opaque cursor from the previous page's Link header." })),
  },
  { additionalProperties: false },
);
export type ListingQuery = Static<typeof ListingQuery>;
