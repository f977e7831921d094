/**
 * Derives account/platformFields.json: the field paths of the platform's Account (EnergyAccount)
 * that this service's Account does not have, each where a payload would first send it (a field
 * whose parent this service knows). Run by hand when the platform's document changes; the document
 * itself is not part of this repository (docs/platform-compatibility.md says where it is):
 *
 *   python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' \
 *     edf-energy-kraken-data-import-openapi.yml > /tmp/platform.json
 *   npx tsx scripts/platformFields.ts /tmp/platform.json
 *
 * Paths are dot paths with `*` for an array item (`customers.*.consents`), as validation errors
 * name them with the index replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AccountSchema, REFERENCED_SCHEMAS } from '../account/schema';

type Json = Record<string, unknown>;
const OUT = path.join(__dirname, '..', 'account', 'platformFields.json');

/** Every field path of a JSON schema, resolving `$ref` through `resolve`. */
function fieldPaths(schema: unknown, resolve: (ref: string) => unknown, prefix: string, out: Set<string>, depth = 0): void {
  if (!schema || typeof schema !== 'object' || depth > 12) return;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return fieldPaths(resolve(s.$ref), resolve, prefix, out, depth + 1);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key])) for (const sub of s[key] as unknown[]) fieldPaths(sub, resolve, prefix, out, depth + 1);
  }
  if (s.items) fieldPaths(s.items, resolve, prefix ? `${prefix}.*` : '*', out, depth + 1);
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, sub] of Object.entries(s.properties as Json)) {
      const p = prefix ? `${prefix}.${name}` : name;
      out.add(p);
      // metadata[].value is free-form: its keys are data.
      if (!(prefix.endsWith('metadata.*') && name === 'value')) fieldPaths(sub, resolve, p, out, depth + 1);
    }
  }
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: tsx scripts/platformFields.ts <platform openapi as JSON>');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { components: { schemas: Json } };
  const platform = new Set<string>();
  fieldPaths({ $ref: '#/components/schemas/EnergyAccount' }, (ref) => doc.components.schemas[ref.replace('#/components/schemas/', '')], '', platform);

  const byId = new Map<string, unknown>(REFERENCED_SCHEMAS.map((s) => [s.$id!, s]));
  const ours = new Set<string>();
  fieldPaths(AccountSchema, (ref) => byId.get(ref), '', ours);

  const parentOf = (p: string) => p.split('.').slice(0, -1).join('.').replace(/\.\*$/, '');
  const known = (p: string) => p === '' || ours.has(p);
  const missing = [...platform].filter((p) => !ours.has(p) && known(parentOf(p))).sort();
  fs.writeFileSync(OUT, `${JSON.stringify({ source: 'EnergyAccount of the platform\'s data-import OpenAPI document (docs/platform-compatibility.md)', platform_paths: platform.size, service_paths: ours.size, fields: missing }, null, 2)}\n`);
  process.stdout.write(`platform Account: ${platform.size} field paths; this service's: ${ours.size}; platform fields not imported (first level each): ${missing.length} -> ${path.relative(process.cwd(), OUT)}\n`);
}

main();
