import { fieldCodes } from '../account/fieldCodes';
import { PLATFORM_ACCOUNT } from '../account/platformAccount';
import { walkAccountSchema } from '../account/schemaWalk';

/** What a mapping may write at an Account path: a list, an object or a value. */
export type FieldKind = 'list' | 'object' | 'value';

export interface AccountField {
  kinds: Set<FieldKind>;
  required: boolean;
  types: string[];
  values: unknown[];
}

/**
 * Every path of the Account the service accepts (`*` for a list's item): the platform's fields
 * (account/platformAccount.json) and the spec's (account/schema.ts, walked by account/schemaWalk.ts
 * as the validator's codes are: `$ref`s followed, so a ledger's transactions are there), as the API
 * takes both.
 */
let cache: Map<string, AccountField> | null = null;

export function accountFields(): Map<string, AccountField> {
  if (cache) return cache;
  const fields = new Map<string, AccountField>();
  const add = (path: string, types: string[], required: boolean, values: unknown[]) => {
    const f = fields.get(path) ?? { kinds: new Set<FieldKind>(), required: false, types: [], values: [] };
    for (const t of types) {
      f.kinds.add(t === 'array' ? 'list' : t === 'object' ? 'object' : 'value');
      if (!f.types.includes(t)) f.types.push(t);
    }
    f.required ||= required;
    for (const v of values) if (!f.values.includes(v)) f.values.push(v);
    fields.set(path, f);
  };
  for (const [path, f] of Object.entries(PLATFORM_ACCOUNT)) {
    const types = f.type.filter((t) => t !== 'null');
    // The platform marks fields required that the service takes without (account/schema.ts decides).
    add(path, types, false, f.enum ?? []);
  }
  walkAccountSchema((s, path, required) => {
    const types = (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []).filter((t) => t !== 'null');
    const values = s.enum ?? (s.const !== undefined ? [s.const] : []);
    if (path && (types.length > 0 || values.length > 0)) add(path, types.length > 0 ? types : ['string'], required, values);
    // A free-form value (no type: any JSON) the schema requires is required all the same.
    else if (path && required) add(path, [], required, []);
  });
  cache = fields;
  return fields;
}

/** How a mapping writes a field (fieldsUnder). */
export type FieldShape = 'list' | 'object' | 'value';

/**
 * The Account's fields directly under `prefix` (`''` the account's, `a.` an object's, `a.*.` a list
 * item's), sorted by path, each with how a mapping writes it: `list`, a list whose items have fields
 * of their own (a child table); `object`, an object with fields of its own (nested fields); `value`,
 * anything else (one column: a plain value, a list of plain values, a free-form object). The one
 * reading of the Account's tree for `map init`'s skeleton and the round-trip extract's tables.
 */
export function fieldsUnder(prefix: string): { path: string; field: AccountField; shape: FieldShape }[] {
  const fields = accountFields();
  const paths = [...fields.keys()];
  return paths
    .filter((p) => p.startsWith(prefix) && p.length > prefix.length && !p.slice(prefix.length).includes('.'))
    .sort()
    .map((path) => {
      const field = fields.get(path)!;
      const shape: FieldShape =
        field.kinds.has('list') && paths.some((k) => k.startsWith(`${path}.*.`)) ? 'list' : field.kinds.has('object') && paths.some((k) => k.startsWith(`${path}.`)) ? 'object' : 'value';
      return { path, field, shape };
    });
}

/**
 * The error codes the validator can raise at an Account path (a list's: at it and at its items),
 * sorted (account/fieldCodes.ts: the schema's, and the rules' from account/fieldCodes.json).
 */
export function accountFieldCodes(path: string): string[] {
  const { codes } = fieldCodes();
  return [...new Set([...(codes.get(path) ?? []), ...(codes.get(`${path}.*`) ?? [])])].sort();
}
