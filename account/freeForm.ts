/**
 * Bounds of a free-form value of the Account (issue 47 item 2): the spec's `metadata[].value`, the
 * platform's fields without a type (a business's `segment_name`, `details[].value`, consents'
 * `type`…) and its objects without described fields (a line item's `params`). The schema says
 * nothing of their inside, so without these one field could hold everything a body may carry
 * (500,000 values), and every later step — the store, the digest, the read-back, an event — spends
 * per value. Each free-form value is held to FREE_FORM_BOUNDS by the ajv keyword `x-free-form`
 * (account/ajv.ts), code `free_form_too_large` at the field: the same check in validate, create,
 * stage and the worker, so they cannot disagree.
 *
 * The figures (docs/security.md "Free-form values"): the largest free-form value of the generated
 * full and mixed accounts holds 3 values, 1 level deep, 43 characters; the bounds leave a supplier room for
 * a real extract's attribute bags (a metadata value is a legacy system's record, often a few
 * hundred fields) and are far below what would cost the digest or the read-back anything.
 */
export interface FreeFormBounds {
  /** Values (objects, arrays, strings, numbers, booleans, nulls) in the value, itself included. */
  maxValues: number;
  /** Levels of objects and arrays inside the value (a scalar is 0, `{}` 1). */
  maxDepth: number;
  /** Characters of its strings and object keys together. */
  maxChars: number;
}

/** The schema keyword of a free-form node. */
export const FREE_FORM_KEYWORD = 'x-free-form';

export const FREE_FORM_BOUNDS: FreeFormBounds = { maxValues: 10_000, maxDepth: 16, maxChars: 100_000 };

export interface FreeFormExcess {
  bound: 'values' | 'depth' | 'chars';
  limit: number;
}

/**
 * The first bound `value` goes past, or null. Iterative and stopping at the first excess, so its
 * cost is bounded by the bounds themselves, whatever the value holds.
 */
export function freeFormExcess(value: unknown, bounds: FreeFormBounds = FREE_FORM_BOUNDS): FreeFormExcess | null {
  let values = 0;
  let chars = 0;
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (++values > bounds.maxValues) return { bound: 'values', limit: bounds.maxValues };
    if (typeof v === 'string') {
      chars += v.length;
      if (chars > bounds.maxChars) return { bound: 'chars', limit: bounds.maxChars };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > bounds.maxDepth) return { bound: 'depth', limit: bounds.maxDepth };
    if (Array.isArray(v)) {
      // More items than values left is past the bound already: no need to stack them.
      if (values + v.length > bounds.maxValues) return { bound: 'values', limit: bounds.maxValues };
      for (const item of v) stack.push({ v: item, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    if (values + keys.length > bounds.maxValues) return { bound: 'values', limit: bounds.maxValues };
    for (const k of keys) {
      chars += k.length;
      stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1 });
    }
    if (chars > bounds.maxChars) return { bound: 'chars', limit: bounds.maxChars };
  }
  return null;
}

/** The detail of a `free_form_too_large` issue. */
export function freeFormDetail(e: FreeFormExcess): string {
  const what = e.bound === 'values' ? `more than ${e.limit} values` : e.bound === 'depth' ? `more than ${e.limit} levels of nesting` : `more than ${e.limit} characters of strings and keys`;
  return `This free-form value holds ${what}.`;
}
