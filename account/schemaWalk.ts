import { AccountSchema, REFERENCED_SCHEMAS } from './schema';

/** A node of the Account's JSON Schema, as the walks over it read it. */
export type SchemaNode = {
  $ref?: string;
  $id?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
} & Record<string, unknown>;

const referenced = new Map(REFERENCED_SCHEMAS.map((s) => [s.$id as string, s as unknown as SchemaNode]));

/**
 * The schema a node stands for: the one its `$ref` names (REFERENCED_SCHEMAS, by `$id`, as ajv
 * resolves it: account/shape.ts registers them), else the node itself. A `$ref` to a schema not
 * registered throws: the validator could not compile it either, and a walk that went on would
 * leave out every path under it.
 */
export function resolveRef(node: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  const target = referenced.get(node.$ref);
  if (!target) throw new Error(`account schema: $ref ${node.$ref} names no schema of REFERENCED_SCHEMAS (account/schema.ts)`);
  return target;
}

/**
 * Visits every node of the Account schema (account/schema.ts AccountSchema; the account itself at
 * path '') with its path (`*` for a list's item) and whether the object that holds it requires it
 * (a list's item: false), `$ref`s followed: first each `anyOf`/`oneOf` alternative at the node's
 * path, then the node, then its properties and its items. The one walk of the schema's paths:
 * the validator's codes at each path (schemaCodes.ts) and the fields a mapping may write
 * (mapping/accountFields.ts) come from it, so that both know the same paths.
 */
export function walkAccountSchema(visit: (node: SchemaNode, path: string, required: boolean) => void): void {
  const walk = (raw: SchemaNode, path: string, required: boolean): void => {
    const s = resolveRef(raw);
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(alt, path, required);
    visit(s, path, required);
    for (const [k, sub] of Object.entries(s.properties ?? {})) walk(sub, path ? `${path}.${k}` : k, (s.required ?? []).includes(k));
    if (s.items) walk(s.items, `${path}.*`, false);
  };
  walk(AccountSchema as unknown as SchemaNode, '', false);
}
