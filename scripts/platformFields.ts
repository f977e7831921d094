/**
 * Derives, from the platform's data-import OpenAPI document, account/platformAccount.json: the
 * platform's Account (EnergyAccount) as data — every field path with its types, formats, value
 * sets, nullability, whether it is required, and its length, range and item constraints (facts of
 * the document, not its text). No depth cap: a `$ref` already on the stack of the path being walked
 * is a cycle and ends that branch. A path reached through several variants (oneOf/anyOf/allOf)
 * merges them: the union of types, formats and value sets (a variant without a value set leaves the
 * field open), the widest lengths and ranges, required only if every variant requires it.
 * account/platformSchema.ts builds the schema of the platform's fields from it, and
 * db/stores/platformTables.ts their storage; the script reports any platform path this service's
 * Account does not accept (none) and any platform value of a shared field its schema lacks.
 * The description records the document's sha256. Run when the platform's document changes; the
 * document itself is not part of this repository (docs/platform-compatibility.md says where it is
 * published): put it at data/platform/edf-energy-kraken-data-import-openapi.yml (or name it in
 * PLATFORM_OPENAPI_DOCUMENT, or give its path) and
 *
 *   npm run platform:describe
 *
 * test/unit/account/platformDescription.test.ts says whether the committed description is the
 * one of the document there (skipped when there is none); `npm run platform:migration` prints the
 * migration a changed description needs.
 *
 * Paths are dot paths with `*` for an array item (`customers.*.consents`), as validation errors
 * name them with the index replaced. test/unit/account/platformAccount.test.ts holds the service's
 * schema to the description.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { AccountSchema, REFERENCED_SCHEMAS } from '../account/schema';
import type { PlatformField } from '../account/platformAccount';

type Json = Record<string, unknown>;
const DESCRIPTION = path.join(__dirname, '..', 'account', 'platformAccount.json');

interface Seen {
  types: Set<string>;
  formats: Set<string>;
  /** null: some variant takes any value of its type. */
  values: Set<unknown> | null;
  nullable: boolean;
  requiredEverywhere: boolean;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  patterns: Set<string>;
  itemTypes: Set<string>;
  itemValues: Set<unknown> | null;
  itemFormats: Set<string>;
}

const widest = (a: number | undefined, b: unknown, pick: (x: number, y: number) => number) =>
  typeof b !== 'number' ? a : a === undefined ? b : pick(a, b);

/**
 * Every field path of a JSON schema, resolving `$ref` through `resolve`; `stack` holds the refs on
 * the way to the current node (a ref met again on it is a cycle). `facts` collects each path's
 * constraints when given.
 */
export function fieldPaths(
  schema: unknown,
  resolve: (ref: string) => unknown,
  prefix: string,
  out: Set<string>,
  facts?: Map<string, Seen>,
  stack: readonly string[] = [],
): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  if (typeof s.$ref === 'string') {
    if (stack.includes(s.$ref)) return;
    return fieldPaths(resolve(s.$ref), resolve, prefix, out, facts, [...stack, s.$ref]);
  }
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    if (!Array.isArray(s[key])) continue;
    const subs = s[key] as unknown[];
    const reached = subs.map(() => new Set<string>());
    subs.forEach((sub, i) => {
      fieldPaths(sub, resolve, prefix, reached[i]!, facts, stack);
      for (const p of reached[i]!) out.add(p);
    });
    // A field that only some of the variants reaching its object have is not required of that
    // object: an electricity bespoke rate has no unit_rate though the gas rate requires one.
    if (facts && key !== 'allOf') {
      for (const p of new Set(reached.flatMap((r) => [...r]))) {
        const parent = parentPath(p);
        const withParent = reached.filter((r) => parent === prefix.replace(/(\.\*)+$/, '') || r.has(parent));
        if (withParent.some((r) => !r.has(p))) facts.get(p)!.requiredEverywhere = false;
      }
    }
  }
  // The discriminator of a choice is a field of the object even when no variant declares it (the
  // platform's Business: `enforce_business_contracts_exist`, mapped from null, false and true).
  const disc = s.discriminator as { propertyName?: string; mapping?: Json } | undefined;
  if (facts && disc?.propertyName && !propertyNamesOfVariants(s, resolve, stack).has(disc.propertyName)) {
    const p = prefix ? `${prefix}.${disc.propertyName}` : disc.propertyName;
    out.add(p);
    record(facts, p, discriminatorSchema(Object.keys(disc.mapping ?? {})), false, resolve, stack);
  }
  if (s.items) fieldPaths(s.items, resolve, prefix ? `${prefix}.*` : '*', out, facts, stack);
  if (s.properties && typeof s.properties === 'object') {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    for (const [name, sub] of Object.entries(s.properties as Json)) {
      const p = prefix ? `${prefix}.${name}` : name;
      out.add(p);
      if (facts) record(facts, p, sub, required.has(name), resolve, stack);
      // metadata[].value is free-form: its keys are data.
      if (!(prefix.endsWith('metadata.*') && name === 'value')) fieldPaths(sub, resolve, p, out, facts, stack);
    }
  }
}

/** The object path a field belongs to: `a.*.b` → `a` (its items' object). */
function parentPath(p: string): string {
  return p.replace(/\.[^.]+$/, '').replace(/(\.\*)+$/, '').replace(/^[^.]+$/, '');
}

/** The property names of an object schema, through `$ref` and `allOf` (not its choices). */
function propertyNames(schema: unknown, resolve: (ref: string) => unknown, stack: readonly string[]): Set<string> {
  if (!schema || typeof schema !== 'object') return new Set();
  const s = schema as Json;
  if (typeof s.$ref === 'string') return stack.includes(s.$ref) ? new Set() : propertyNames(resolve(s.$ref), resolve, [...stack, s.$ref]);
  const own = new Set(Object.keys((s.properties as Json | undefined) ?? {}));
  for (const sub of Array.isArray(s.allOf) ? (s.allOf as unknown[]) : []) for (const n of propertyNames(sub, resolve, stack)) own.add(n);
  return own;
}

/** Every property name an object or any of its variants declares. */
function propertyNamesOfVariants(s: Json, resolve: (ref: string) => unknown, stack: readonly string[]): Set<string> {
  return new Set(variants(s, resolve, stack).flatMap((v) => [...propertyNames(v, resolve, stack)]));
}

/** The schema of a discriminator no variant declares, from its mapping's keys. */
function discriminatorSchema(keys: string[]): Json {
  const values = keys.filter((k) => k !== 'null');
  const booleans = values.every((k) => k === 'true' || k === 'false');
  return booleans ? { type: 'boolean', nullable: keys.includes('null') } : { type: 'string', enum: values, nullable: keys.includes('null') };
}

/** The leaf schemas of a node: through `$ref` and the variants, cycle-safe. */
function variants(schema: unknown, resolve: (ref: string) => unknown, stack: readonly string[]): Json[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Json;
  if (typeof s.$ref === 'string') return stack.includes(s.$ref) ? [] : variants(resolve(s.$ref), resolve, [...stack, s.$ref]);
  const subs = (['allOf', 'oneOf', 'anyOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
  const own = Object.keys(s).some((k) => !['allOf', 'oneOf', 'anyOf', 'description', 'title', 'example'].includes(k));
  return [...(own || subs.length === 0 ? [s] : []), ...subs.flatMap((sub) => variants(sub, resolve, stack))];
}

function record(facts: Map<string, Seen>, p: string, schema: unknown, required: boolean, resolve: (ref: string) => unknown, stack: readonly string[]): void {
  let f = facts.get(p);
  if (!f) {
    f = { types: new Set(), formats: new Set(), values: new Set(), nullable: false, requiredEverywhere: true, patterns: new Set(), itemTypes: new Set(), itemValues: new Set(), itemFormats: new Set() };
    facts.set(p, f);
  }
  f.requiredEverywhere &&= required;
  for (const v of variants(schema, resolve, stack)) {
    const type = typeof v.type === 'string' ? v.type : v.properties ? 'object' : v.items ? 'array' : undefined;
    if (type) f.types.add(type);
    if (typeof v.format === 'string') f.formats.add(v.format);
    if (v.nullable === true) f.nullable = true;
    if (Array.isArray(v.enum)) {
      if (f.values) for (const e of v.enum) f.values.add(e);
    } else if (type && type !== 'object' && type !== 'array' && type !== 'boolean') f.values = null;
    if (typeof v.pattern === 'string') f.patterns.add(v.pattern);
    f.maxLength = widest(f.maxLength, v.maxLength, Math.max);
    f.minLength = widest(f.minLength, v.minLength, Math.min);
    f.minimum = widest(f.minimum, v.minimum, Math.min);
    f.maximum = widest(f.maximum, v.maximum, Math.max);
    f.minItems = widest(f.minItems, v.minItems, Math.min);
    f.maxItems = widest(f.maxItems, v.maxItems, Math.max);
    if (type === 'array') {
      for (const item of variants(v.items, resolve, stack)) {
        const itemType = typeof item.type === 'string' ? item.type : item.properties ? 'object' : undefined;
        if (itemType) f.itemTypes.add(itemType);
        if (typeof item.format === 'string') f.itemFormats.add(item.format);
        if (Array.isArray(item.enum)) {
          if (f.itemValues) for (const e of item.enum) f.itemValues.add(e);
        } else if (itemType && itemType !== 'object') f.itemValues = null;
      }
    }
  }
}

const sorted = (s: Set<string>) => [...s].sort();

function describe(f: Seen): PlatformField {
  const d: PlatformField = { type: sorted(f.types) };
  if (f.formats.size > 0) d.format = sorted(f.formats);
  const scalar = f.types.size > 0 && [...f.types].every((t) => t === 'string' || t === 'integer' || t === 'number');
  if (scalar && f.values && f.values.size > 0) d.enum = [...f.values];
  if (f.nullable) d.nullable = true;
  if (f.requiredEverywhere) d.required = true;
  for (const k of ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const) if (f[k] !== undefined) d[k] = f[k];
  if (f.patterns.size > 0) d.pattern = sorted(f.patterns);
  if (f.itemTypes.size > 0 && !f.itemTypes.has('object')) {
    d.items = { type: sorted(f.itemTypes) };
    if (f.itemFormats.size > 0) d.items.format = sorted(f.itemFormats);
    if (f.itemValues && f.itemValues.size > 0) d.items.enum = [...f.itemValues];
  }
  return d;
}

/** This service's Account field paths (account/schema.ts), with their facts when `facts` is given. */
export function servicePaths(facts?: Map<string, Seen>): Set<string> {
  const byId = new Map<string, unknown>(REFERENCED_SCHEMAS.map((s) => [s.$id!, s]));
  const ours = new Set<string>();
  fieldPaths(AccountSchema, (ref) => byId.get(ref), '', ours, facts);
  return ours;
}

/**
 * The shared fields (the same path in both) whose platform values this service's schema does not
 * list, each with those values: what "every platform value of a shared field" still lacks.
 */
function refusedValues(platform: Map<string, Seen>): string[] {
  const facts = new Map<string, Seen>();
  const ours = servicePaths(facts);
  const out: string[] = [];
  for (const [p, f] of platform) {
    const o = facts.get(p);
    if (!ours.has(p) || !o || !f.values || !o.values) continue;
    const lacking = [...f.values].filter((v) => v !== null && !o.values!.has(v));
    if (lacking.length > 0) out.push(`  ${p}: ${lacking.length} (${lacking.slice(0, 5).map((v) => JSON.stringify(v)).join(', ')}${lacking.length > 5 ? ', …' : ''})`);
  }
  return out;
}

/** Where the platform's document is looked for: PLATFORM_OPENAPI_DOCUMENT, else under data/ (not committed). */
export const PLATFORM_DOCUMENT = process.env.PLATFORM_OPENAPI_DOCUMENT ?? path.join(__dirname, '..', 'data', 'platform', 'edf-energy-kraken-data-import-openapi.yml');

/**
 * The description (account/platformAccount.json's text) of the platform's document, given as its
 * bytes (YAML, or JSON, which YAML reads too): every field of its EnergyAccount, and the document's
 * sha256, so that the description says which document it is of.
 */
export function describePlatform(document: Buffer): { text: string; facts: Map<string, Seen>; paths: Set<string> } {
  const doc = yaml.load(document.toString('utf8')) as { components: { schemas: Json } };
  const resolve = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
  const platform = new Set<string>();
  const facts = new Map<string, Seen>();
  fieldPaths({ $ref: '#/components/schemas/EnergyAccount' }, resolve, '', platform, facts);
  const fields = Object.fromEntries([...platform].sort().map((p) => [p, describe(facts.get(p)!)]));
  const source = "EnergyAccount of the platform's data-import OpenAPI document (docs/platform-compatibility.md)";
  const sha256 = crypto.createHash('sha256').update(document).digest('hex');
  return { text: `${JSON.stringify({ source, document: { name: 'edf-energy-kraken-data-import-openapi.yml', sha256 }, paths: platform.size, fields }, null, 1)}\n`, facts, paths: platform };
}

function main(): void {
  const file = process.argv[2] ?? PLATFORM_DOCUMENT;
  if (!fs.existsSync(file)) throw new Error(`usage: npm run platform:describe [-- <the platform's OpenAPI document>] (not found: ${file})`);
  const { text, facts, paths: platform } = describePlatform(fs.readFileSync(file));
  const before = fs.readFileSync(DESCRIPTION, 'utf8');
  fs.writeFileSync(DESCRIPTION, text);

  const refused = refusedValues(facts);
  // This process's schema was built from the description as it was before this run.
  const ours = servicePaths();
  const unaccepted = [...platform].filter((p) => !ours.has(p)).sort();
  process.stdout.write(
    `${file}\nplatform Account: ${platform.size} field paths -> ${path.relative(process.cwd(), DESCRIPTION)} (${before === text ? 'unchanged' : 'changed'}); this service's: ${ours.size}; ` +
      `platform paths this service's Account (as built before this run) does not accept: ${unaccepted.length}${unaccepted.length ? `\n  ${unaccepted.join('\n  ')}` : ''}\n` +
      `shared fields with platform values this service's schema does not list (campaign slugs are reference data): ${refused.length}\n${refused.join('\n')}\n` +
      (before === text ? '' : 'Next: npm run platform:migration prints the migration the new description needs.\n'),
  );
}

if (require.main === module) main();
