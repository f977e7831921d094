import { ajvErrorCode } from './errors';
import { walkAccountSchema } from './schemaWalk';

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
  walkAccountSchema((s, path, required) => {
    if (path === '') return;
    if (required) add(path, ajvErrorCode('required'));
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    const field = path.slice(path.lastIndexOf('.') + 1);
    if (types.length > 0) {
      add(path, ajvErrorCode('type'));
      if (!types.includes('null')) add(path, ajvErrorCode('type', { isNull: true }));
    }
    if (types.includes('string')) add(path, 'invalid_character');
    for (const keyword of Object.keys(s)) if (!STRUCTURE.has(keyword)) add(path, ajvErrorCode(keyword, { format: s.format, field }));
  });
  return codes;
}
