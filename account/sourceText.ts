/**
 * Reading TypeScript (or the JavaScript built from it) as text, enough for account/ruleSites.ts to
 * follow an argument of a call: an argument's extent, a bracket's match, a template's parts.
 */

/**
 * The field names a source reads or names in its code (`.customers`, `'payment_schedules'`), not
 * in its comments or messages: a rule file's records.
 */
export function codeWords(text: string): Set<string> {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return new Set([...code.matchAll(/[.'`]([a-z][a-z0-9_]*)\b/g)].map((m) => m[1]));
}

/** The text of one argument starting at `i`: up to the `,` or `)` that closes it. */
export function readArg(text: string, i: number): string {
  let depth = 0;
  let quote: string | null = null;
  const start = i;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      else if (quote === '`' && c === '$' && text[i + 1] === '{') {
        const end = matching(text, i + 1);
        i = end;
      }
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) break;
  }
  return text.slice(start, i).trim();
}

/** The index of the bracket closing the one at `open`. */
export function matching(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const close = pairs[text[open]];
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === text[open]) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return text.length;
}

/** Parts of a template literal's body: literal text and `${…}` expressions. */
export function templateParts(body: string): { text?: string; expr?: string }[] {
  const parts: { text?: string; expr?: string }[] = [];
  let i = 0;
  while (i < body.length) {
    const j = body.indexOf('${', i);
    if (j === -1) {
      parts.push({ text: body.slice(i) });
      break;
    }
    if (j > i) parts.push({ text: body.slice(i, j) });
    const end = matching(body, j + 1);
    parts.push({ expr: body.slice(j + 2, end).trim() });
    i = end + 1;
  }
  return parts;
}

/** A call's arguments, split at the top-level commas. */
export function splitArgs(s: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < s.length) {
    const a = readArg(s, i);
    args.push(a);
    i = s.indexOf(a, i) + a.length;
    while (i < s.length && (s[i] === ',' || /\s/.test(s[i]))) i++;
    if (a === '') break;
  }
  return args;
}
