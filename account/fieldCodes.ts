import { ajvErrorCode } from './errors';
import { END_RULES } from './rules/periods';
import { ruleSites, type RuleSite } from './ruleSites';
import { AccountSchema, REFERENCED_SCHEMAS } from './schema';

/**
 * The error codes that can be raised at each path of the Account (`*` for a list's item), as the
 * validator raises them: the shape check's, from the schema's keywords through the one mapping of
 * keywords to codes (errors.ts ajvErrorCode), `invalid_character` on every text (storableText.ts);
 * the domain and reference rules', from their own table (periods.ts END_RULES) and from where
 * their source raises each code (ruleSites.ts). `data-import map init` writes them beside each
 * field (mapping/init.ts). Codes at a list's item (`supply_addresses.*`: a duplicate address) are
 * at its path with the `*`.
 */
export interface FieldCodes {
  codes: Map<string, Set<string>>;
  /** Rule calls whose attr could not be followed to a path (ruleSites.ts), and anchored patterns that name no path. */
  unplaced: { code: string; file: string; attr: string }[];
}

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

let cache: FieldCodes | null = null;

export function fieldCodes(): FieldCodes {
  if (cache) return cache;
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

  for (const rule of END_RULES) add(`${rule.pattern}.${rule.to}`, rule.code);
  const paths = [...codes.keys()];
  const sites = ruleSites();
  const unplaced = [...sites.unresolved];
  for (const site of sites.sites) {
    const placed = site.patterns.flatMap((p) => (site.anchored ? (codes.has(p) ? [p] : []) : endingWith(paths, p, site)));
    for (const p of placed) add(p, site.code);
    if (placed.length === 0) unplaced.push({ code: site.code, file: site.file, attr: site.patterns.join(' | ') });
  }
  cache = { codes, unplaced };
  return cache;
}

/**
 * The paths that end with `tail` (the end of an attr whose start a rule builds out of sight) and
 * whose record, the list or object just above the tail, the rule's file names: `.email` in the
 * customers' rules is a customer's and a property administrator's, not a business user's.
 */
function endingWith(paths: string[], tail: string, site: RuleSite): string[] {
  const t = tail.split('.');
  return paths.filter((p) => {
    const parts = p.split('.');
    if (parts.length < t.length || t.some((x, i) => parts[parts.length - t.length + i] !== x)) return false;
    const record = parts.slice(0, parts.length - t.length).filter((x) => x !== '*').pop();
    return record === undefined || site.words.has(record);
  });
}
