import { NON_FIELD_ERRORS, type IssueList } from './issues';

/**
 * Text PostgreSQL cannot hold as sent (issue 47 item 2: validate and create never disagree): a
 * U+0000 (text and jsonb refuse it; create answered 400 where validate had answered 200) and a
 * lone UTF-16 surrogate (`"\ud800"`: jsonb refuses it, a text column stores U+FFFD instead, so the
 * account would read back different from what was sent). JSON.parse produces both from escapes.
 * Found in a string value or an object key anywhere in the Account: `invalid_character` at the
 * field (docs/spec/RULES.md).
 */
// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** A NUL or any surrogate: the cheap test almost every string fails; only a match is looked at closely. */
const SUSPECT = /[\u0000\ud800-\udfff]/;

export function isStorableText(s: string): boolean {
  return !SUSPECT.test(s) || !UNSTORABLE.test(s);
}

/** Whether any string or key of `value` is one PostgreSQL cannot store: the common case's one cheap pass (no paths built). */
function holdsUnstorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isStorableText(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' || typeof item === 'string') stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const k in v) {
        if (!isStorableText(k)) return true;
        const item = (v as Record<string, unknown>)[k];
        if (typeof item === 'object' || typeof item === 'string') stack.push(item);
      }
    }
  }
  return false;
}

/**
 * Adds an `invalid_character` issue for each string or key of `value` PostgreSQL cannot store.
 * Iterative; the value is already within the body's bounds (values, depth), so the walk is too.
 * One pass without paths first; the paths are built only for a value that holds such text.
 */
export function checkStorableText(value: unknown, out: IssueList, prefix = ''): void {
  if (!holdsUnstorable(value)) return;
  const stack: { v: unknown; at: string }[] = [{ v: value, at: prefix }];
  while (stack.length > 0 && !out.full) {
    const { v, at } = stack.pop() as { v: unknown; at: string };
    if (typeof v === 'string') {
      if (!isStorableText(v)) out.add('invalid_character', at || NON_FIELD_ERRORS, 'This text contains a character that cannot be stored (U+0000 or a lone surrogate).');
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], at: at === '' ? String(i) : `${at}.${i}` });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      const path = at === '' ? k : `${at}.${k}`;
      if (!isStorableText(k)) {
        out.add('invalid_character', at || NON_FIELD_ERRORS, 'A key of this object contains a character that cannot be stored (U+0000 or a lone surrogate).');
        continue;
      }
      stack.push({ v: (v as Record<string, unknown>)[k], at: path });
    }
  }
}
