import type Router from '@koa/router';
import { ERROR_CODES } from '../../http/errors';
import { startStack } from '../support/stack';
import { exampleAccount } from '../support/fixtures';
import { documentAjv, openApiDocument } from '../support/openapiDocument';

type Json = Record<string, unknown>;
const doc = openApiDocument();

/** Resolves a local JSON pointer (`#/components/schemas/Account`). */
function resolve(pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), doc);
}

function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

/** Error codes per documented HTTP status, following $refs. */
function codesByStatus(): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const visit = (node: unknown, status: number | undefined, seen: Set<string>) => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, status, seen));
    if (!node || typeof node !== 'object') return;
    const o = node as Json;
    if (typeof o.$ref === 'string' && !seen.has(o.$ref)) visit(resolve(o.$ref), status, new Set([...seen, o.$ref]));
    for (const [k, v] of Object.entries(o)) {
      // Error answers only: an Account in a 200 has fields named `code` of its own (an agreement characteristic's).
      if (k === 'code' && v && typeof v === 'object' && Array.isArray((v as Json).enum) && status !== undefined && status >= 400) {
        for (const c of (v as { enum: string[] }).enum) out.set(c, new Set([...(out.get(c) ?? []), status]));
      }
      visit(v, /^[1-5]\d\d$/.test(k) ? Number(k) : status, seen);
    }
  };
  visit(doc.paths, undefined, new Set());
  return out;
}

/** A path with its parameters blanked, `{name}` (OpenAPI) and `:name` (the router) alike, and no trailing slash. */
const shape = (path: string) => path.replace(/\{[^}/]+\}|:[A-Za-z0-9_]+/g, '{}').replace(/(.)\/$/, '$1');

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with info, paths and components', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
  });

  it('resolves every $ref', () => {
    const unresolved = [...new Set(refsOf(doc))].filter((r) => resolve(r) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('gives every operation an operationId and responses, each with a description', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) problems.push(`${p}: unknown key ${method}`);
        const id = op.operationId as string;
        if (!id || ids.has(id)) problems.push(`${method} ${p}: operationId missing or repeated`);
        ids.add(id);
        const responses = op.responses as Record<string, Json> | undefined;
        if (!responses || Object.keys(responses).length === 0) problems.push(`${method} ${p}: no responses`);
        for (const [status, r] of Object.entries(responses ?? {})) {
          const res = (r.$ref ? resolve(r.$ref as string) : r) as Json;
          if (typeof res?.description !== 'string') problems.push(`${method} ${p} ${status}: no description`);
        }
        for (const param of (op.parameters as Json[] | undefined) ?? []) {
          if (param.in === 'path' && !p.includes(`{${param.name as string}}`)) problems.push(`${method} ${p}: path parameter ${param.name as string} not in the path`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents every operation the API routes, and routes every documented one', async () => {
    // The routes as the running app mounts them (the router's own table), not the registry they
    // come from: a route mounted outside the registry, or a documented path routed elsewhere, fails.
    const s = await startStack({ worker: false, relay: false });
    try {
      const routers = s.app.middleware.map((m) => (m as { router?: Router }).router).filter((r): r is Router => r !== undefined);
      const routed = routers.flatMap((r) => r.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${shape(String(layer.path))}`)));
      const documented = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${shape(p)}`));
      expect(routers).toHaveLength(1);
      expect(new Set(routed).size).toBe(routed.length);
      expect(routed.sort()).toEqual(documented.sort());
    } finally {
      await s.stop();
    }
  });

  it('compiles every component schema with ajv (JSON Schema 2020-12) and accepts the example account', () => {
    const ajv = documentAjv(doc);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`)).not.toThrow();
    }
    const body = ajv.compile({ $ref: 'openapi.json#/paths/~1v2~1data-import~1accounts~1/post/requestBody/content/application~1json/schema' });
    const example = exampleAccount();
    expect(body(example)).toBe(true);
    expect(body({ payload: example, task_params: { is_dry_run: true } })).toBe(true);
    expect(body({ ...example, surprise: 1 })).toBe(false);
    // The platform's example flag, a platform field, and a field neither documents.
    expect(body({ ...example, unknown_occupier: false, operations_team_name: 'Team A' })).toBe(true);
    expect(body({ ...example, partner_organisations: [] })).toBe(true);
    expect(body({ ...example, partner_organisation: [] })).toBe(false);
  });

  it('names only codes of ERROR_CODES, each under its own status, and every code answered by an operation', () => {
    const documented = codesByStatus();
    const wrong = [...documented].filter(([code, statuses]) => !(code in ERROR_CODES) || [...statuses].some((st) => st !== ERROR_CODES[code as keyof typeof ERROR_CODES]));
    expect(wrong).toEqual([]);
    // `invalid` is in the list but no operation answers it today.
    const missing = Object.keys(ERROR_CODES).filter((c) => !documented.has(c) && c !== 'invalid');
    expect(missing).toEqual([]);
  });
});
