import derived from './fieldCodes.json';
import { schemaCodes } from './schemaCodes';

/**
 * The error codes that can be raised at each path of the Account (`*` for a list's item), as the
 * validator raises them: the shape check's, from the schema (schemaCodes.ts), and the domain and
 * reference rules', from where their source raises each code: account/fieldCodes.json, derived
 * from the rules by `npm run facts:field-codes` (scripts/fieldCodes.ts) and held to them by
 * test/unit/account/fieldCodes.test.ts. `data-import map init` writes them beside each field
 * (mapping/init.ts). Codes at a list's item (`supply_addresses.*`: a duplicate address) are at its
 * path with the `*`.
 */
export interface FieldCodes {
  codes: Map<string, Set<string>>;
  /** Rule calls whose attr the derivation could not follow to a path of the Account (none today). */
  unplaced: { code: string; file: string; attr: string }[];
}

let cache: FieldCodes | null = null;

export function fieldCodes(): FieldCodes {
  if (cache) return cache;
  const codes = schemaCodes();
  for (const [path, raised] of Object.entries(derived.codes as Record<string, string[]>)) {
    const set = codes.get(path) ?? new Set<string>();
    for (const code of raised) set.add(code);
    codes.set(path, set);
  }
  cache = { codes, unplaced: derived.unplaced };
  return cache;
}
