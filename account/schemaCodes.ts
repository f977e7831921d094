import { ajvErrorCode } from './errors';
import { AccountSchema, REFERENCED_SCHEMAS } from './schema';

type Schema = {
  $ref?: string;
  $id?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
} & Record<string, unknown>;

/** Keywords that describe or structure a schema rather than check a value. */
const STRUCTURE = new Set(['$id', '$ref', 'type', 'properties', 'items', 'required', 'additionalProperties', 'anyOf', 'oneOf', 'description', 'title', 'default', 'examples', 'nullable', 'deprecated']);

/**
 * The shape check's error codes at each path of the Account (`*` for a list's item), from the
 * schema's keywords through the one mapping of keywords to codes (errors.ts ajvErrorCode), and
 * `invalid_character` on every text (storableText.ts). Its keys are every path of the Account:
 * the rules' codes are placed on them (account/fieldCodes.ts, scripts/fieldCodes.ts).
 */
export function schemaCodes(): Map<string, Set<string>> {
  const codes = new Map<string, Set<string>>();
  const add = (path: string, code: string) => {
    let set = codes.get(path);
    if (!set) codes.set(path, (set = new Set()));
    set.add(code);
  };
  const refs = new Map(REFERENCED_SCHEMAS.map((s) => [s.$id as string, s as unknown as Schema]));
  const walk = (raw: Schema, path: string) => {
    const s = raw.$ref ? (refs.get(raw.$ref) ?? raw) : raw;
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(alt, path);
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    const field = path.slice(path.lastIndexOf('.') + 1);
    if (path !== '') {
      if (types.length > 0) {
        add(path, ajvErrorCode('type'));
        if (!types.includes('null')) add(path, ajvErrorCode('type', { isNull: true }));
      }
      if (types.includes('string')) add(path, 'invalid_character');
      for (const keyword of Object.keys(s)) if (!STRUCTURE.has(keyword)) add(path, ajvErrorCode(keyword, { format: s.format, field }));
    }
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      const child = path ? `${path}.${k}` : k;
      if ((s.required ?? []).includes(k)) add(child, ajvErrorCode('required'));
      walk(sub, child);
    }
    if (s.items) walk(s.items, `${path}.*`);
  };
  walk(AccountSchema as unknown as Schema, '');
  return codes;
}
