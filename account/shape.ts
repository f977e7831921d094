import type { ValidateFunction } from 'ajv';
import { ajv, ajvFirstError } from './ajv';
import { translateAjvErrors } from './errors';
import type { IssueList } from './issues';
import { AccountSchema, REFERENCED_SCHEMAS, type Account } from './schema';

/**
 * The shape check of an Account, bounded.
 *
 * ajv's allErrors mode has no error limit: 100,000 bad readings would cost 100,000+ error objects
 * and a second of CPU. So:
 * 1. one fail-fast pass over the whole Account (the common, valid case costs one pass);
 * 2. when it fails, a walk over the payload, node by node (every schema with an `$id`), each node
 *    checked by a *shallow* validator (its own fields; child objects only checked to be objects,
 *    child arrays only for type and maxItems) compiled at load with allErrors. The walk stops as
 *    soon as one error beyond MAX_REPORTED_ERRORS is found, and never descends past an array's
 *    maxItems (the array is rejected already).
 */

type Json = Record<string, unknown>;

interface Child {
  field: string;
  nodeId: string;
  isArray: boolean;
  maxItems: number;
}

interface Node {
  validate: ValidateFunction;
  children: Child[];
}

const byId = new Map<string, Json>();
const nodes = new Map<string, Node>();

function resolve(schema: Json): Json {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (byId.get(ref) as Json) : schema;
}

function isNode(schema: Json): boolean {
  return typeof schema.$id === 'string' && schema.type === 'object' && schema.properties !== undefined;
}

function register(schema: Json): void {
  if (isNode(schema)) {
    if (byId.has(schema.$id as string)) return;
    byId.set(schema.$id as string, schema);
  }
  for (const prop of Object.values((schema.properties ?? {}) as Record<string, Json>)) {
    const p = resolve(prop) ?? prop;
    register(p);
    if (p.type === 'array' && p.items) register(resolve(p.items as Json));
  }
}

function buildNode(schema: Json): Node {
  const properties: Record<string, unknown> = {};
  const children: Child[] = [];
  for (const [field, raw] of Object.entries(schema.properties as Record<string, Json>)) {
    const prop = resolve(raw);
    const items = prop.type === 'array' ? resolve(prop.items as Json) : undefined;
    if (isNode(prop)) {
      properties[field] = { type: 'object' };
      children.push({ field, nodeId: prop.$id as string, isArray: false, maxItems: 0 });
    } else if (items && isNode(items)) {
      const maxItems = prop.maxItems as number;
      properties[field] = { type: 'array', maxItems, items: { type: 'object' } };
      children.push({ field, nodeId: items.$id as string, isArray: true, maxItems });
    } else {
      properties[field] = prop;
    }
  }
  const shallow = { type: 'object', properties, required: schema.required ?? [], additionalProperties: false };
  return { validate: ajv.compile(shallow), children };
}

for (const s of REFERENCED_SCHEMAS) register(s as unknown as Json);
register(AccountSchema as unknown as Json);
for (const [id, schema] of byId) nodes.set(id, buildNode(schema));

for (const s of REFERENCED_SCHEMAS) ajvFirstError.addSchema(s);
const validateFast = ajvFirstError.compile<Account>(AccountSchema);

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function walk(nodeId: string, data: Json, prefix: string, out: IssueList): void {
  const node = nodes.get(nodeId) as Node;
  if (!node.validate(data)) translateAjvErrors(node.validate.errors ?? [], data, out, prefix);
  for (const child of node.children) {
    if (out.dropped > 0) return;
    const value = data[child.field];
    const base = prefix === '' ? child.field : `${prefix}.${child.field}`;
    if (!child.isArray) {
      if (isPlainObject(value)) walk(child.nodeId, value, base, out);
      continue;
    }
    if (!Array.isArray(value)) continue;
    const n = Math.min(value.length, child.maxItems);
    for (let i = 0; i < n && out.dropped === 0; i++) {
      const item = value[i];
      if (isPlainObject(item)) walk(child.nodeId, item, `${base}.${i}`, out);
    }
  }
}

/** Adds the shape errors of `candidate` (an object) to `out`; true when there are none. */
export function checkAccountShape(candidate: Json, out: IssueList): candidate is Account & Json {
  if (validateFast(candidate)) return true;
  walk(AccountSchema.$id as string, candidate, '', out);
  return false;
}
