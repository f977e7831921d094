import fs from 'node:fs';
import path from 'node:path';
import { codeWords, matching, readArg, splitArgs, templateParts } from './sourceText';

/**
 * Where the domain and reference rules raise each code, read from the rules' own source (the files
 * of account/rules/ and validator.ts, as .ts or as the build's .js): every `.add('<code>', <attr>`
 * call, its attr expression followed back through the bindings that build it — a string, a
 * template, a loop over `okItems`/`records`/`each`/`meterPoints`, a `const`, a loop over a literal
 * list of field names, a function's parameter through its calls in the same file. What comes out
 * is a pattern of the Account's paths (`*` for an item's index); where the start of the attr cannot
 * be followed, its known end (`.email`, `reading_history.*.reading_date`) is kept, unanchored.
 * `data-import map init` writes the codes beside each field (mapping/accountFields.ts); a call
 * whose attr cannot be followed at all is returned as unresolved, so a test can name it.
 */
export interface RuleSite {
  code: string;
  /** Paths with `*` for indices; unanchored: only the end of the path is known. */
  patterns: string[];
  anchored: boolean;
  /** The file the call is in (its base name), and the words of that file: the names of the records it reads. */
  file: string;
  words: Set<string>;
}

export interface RuleSites {
  sites: RuleSite[];
  unresolved: { code: string; file: string; attr: string }[];
}

interface Source {
  name: string;
  text: string;
  words: Set<string>;
}

interface Resolved {
  patterns: string[];
  anchored: boolean;
}

const MAX_DEPTH = 12;

export function ruleSites(dir = __dirname, ext = path.extname(__filename)): RuleSites {
  const files = [...fs.readdirSync(path.join(dir, 'rules')).map((f) => path.join('rules', f)), `validator${ext}`].filter((f) => f.endsWith(ext) && !f.endsWith(`.d${ext}`));
  const sources: Source[] = files.map((f) => {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    return { name: path.basename(f, ext), text, words: codeWords(text) };
  });
  const out: RuleSites = { sites: [], unresolved: [] };
  for (const src of sources) {
    const r = new Resolver(src, sources);
    for (const m of src.text.matchAll(/\.add\(\s*'([a-z_]+)'\s*,\s*/g)) {
      const at = m.index + m[0].length;
      const attr = readArg(src.text, at);
      // An error about the whole payload (built: `issues_1.NON_FIELD_ERRORS`) is no field's.
      if (/\bNON_FIELD_ERRORS$/.test(attr)) continue;
      const resolved = r.expr(attr, at, 0);
      if (resolved === null || resolved.patterns.length === 0) out.unresolved.push({ code: m[1], file: src.name, attr });
      else out.sites.push({ code: m[1], patterns: resolved.patterns.map(normalise), anchored: resolved.anchored, file: src.name, words: src.words });
    }
  }
  return out;
}

/** Literal indices (`transfer_readings.1`) are any item. */
function normalise(pattern: string): string {
  return pattern
    .split('.')
    .map((p) => (/^\d+$/.test(p) ? '*' : p))
    .join('.');
}

/** An item's index: a one-letter loop variable or an element of an index list (`order[n]`). */
const isIndex = (e: string) => /^[a-z]$/.test(e) || /^\w+\[[a-z]\]$/.test(e);

function product(heads: string[], tails: string[]): string[] {
  return heads.flatMap((h) => tails.map((t) => h + t));
}

class Resolver {
  constructor(
    private readonly src: Source,
    private readonly all: Source[],
  ) {}

  expr(e: string, at: number, depth: number): Resolved | null {
    if (depth > MAX_DEPTH) return null;
    e = e.replace(/\s+as const$/, '').trim();
    const literal = /^'([^']*)'$/.exec(e);
    if (literal) return { patterns: [literal[1]], anchored: true };
    if (e.startsWith('`') && e.endsWith('`')) return this.template(e.slice(1, -1), at, depth);
    if (/^[A-Za-z_]\w*$/.test(e)) return this.identifier(e, at, depth);
    // Anything else (a call such as `at('sort_code')`, a condition): the field names it spells out.
    const names = [...e.matchAll(/'([a-z_][a-z0-9_.]*)'/g)].map((m) => m[1]);
    for (const m of e.matchAll(/\b[A-Z][A-Z0-9_]+\b/g)) names.push(...(this.constList(m[0]) ?? []));
    return names.length > 0 ? { patterns: names, anchored: false } : null;
  }

  private template(body: string, at: number, depth: number): Resolved | null {
    const parts = templateParts(body);
    let tails = [''];
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p];
      if (part.text !== undefined) {
        tails = tails.map((t) => part.text + t);
        continue;
      }
      const e = part.expr!;
      if (isIndex(e) && !this.boundByLoop(e, at)) {
        tails = tails.map((t) => `*${t}`);
        continue;
      }
      const names = this.names(e, at);
      if (names) {
        tails = product(names, tails);
        continue;
      }
      // A field name that cannot be followed (`${attr}.${field}`, field a parameter): the record it is of.
      if (p > 0 && tails.every((t) => t === '')) {
        const record = this.expr(parts.slice(0, p).map((x) => (x.text !== undefined ? x.text : `\${${x.expr}}`)).join('').replace(/\.$/, '').replace(/^/, '`') + '`', at, depth + 1);
        return record && record.patterns.length > 0 ? record : null;
      }
      const head = this.expr(e, at, depth + 1);
      // The start cannot be followed: keep the end, which names the field.
      if (head === null) return { patterns: tails.map((t) => t.replace(/^\./, '')).filter((t) => t !== ''), anchored: false };
      // `${prefix}field` where prefix is '' or `ledgers.N.`: both.
      return { patterns: product(head.patterns, tails).map((t) => t.replace(/^\./, '')), anchored: head.anchored };
    }
    return { patterns: tails, anchored: true };
  }

  /** A one-letter variable that is a loop's item (`for (const f of fields)`), not an index. */
  private boundByLoop(id: string, at: number): boolean {
    for (const m of this.src.text.slice(0, at).matchAll(new RegExp(`for \\(const ${id} of `, 'g'))) if (this.inScope(m.index, at, true)) return true;
    return false;
  }

  /** A variable bound by a loop over a literal list of names (`for (const field of ['mobile', 'landline'])`). */
  private names(id: string, at: number): string[] | null {
    const re = new RegExp(`for \\(const ${id} of (?:\\[([^\\]]*)\\]|([A-Z][A-Z0-9_]+)\\b)`, 'g');
    let found: string[] | null = null;
    for (const m of this.src.text.slice(0, at).matchAll(re)) {
      if (this.inScope(m.index, at, true)) found = m[1] !== undefined ? [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]) : this.constList(m[2]);
    }
    return found;
  }

  /** The names a module's constant list or table holds (`const SMART_FIELDS = ['smart_commissioned_on', …]`). */
  private constList(name: string): string[] | null {
    const m = new RegExp(`const ${name}(?::[^=]+)? = `).exec(this.src.text);
    if (!m) return null;
    const start = m.index + m[0].length;
    const end = this.src.text.indexOf(';\n', start);
    const names = [...this.src.text.slice(start, end).matchAll(/'([a-z_][a-z0-9_]*)'/g)].map((x) => x[1]);
    return names.length > 0 ? names : null;
  }

  private identifier(id: string, at: number, depth: number): Resolved | null {
    const names = this.names(id, at);
    if (names) return { patterns: names, anchored: true };
    const text = this.src.text;
    const before = text.slice(0, at);
    const bindings: { index: number; resolve: () => Resolved | null; loop: boolean }[] = [];
    const item = (r: Resolved | null): Resolved | null => r && { patterns: r.patterns.map((p) => `${p}.*`), anchored: r.anchored };
    for (const m of before.matchAll(new RegExp(`const ${id} = (?!\\()`, 'g'))) {
      const start = m.index + m[0].length;
      bindings.push({ index: m.index, loop: false, resolve: () => this.expr(readArg(text.replace(/;/g, ','), start), start, depth + 1) });
    }
    // for (const [x, attr(, i)] of okItems(ctx, value, BASE)) / records(ctx, o, 'key', BASE) / each(ctx, PATTERN) / fn(ctx);
    // built, an imported function is called as `(0, context_1.okItems)(ctx, …)`.
    for (const m of before.matchAll(new RegExp(`for \\(const (\\[[^\\]]*\\b${id}\\b[^\\]]*\\]|\\{[^}]*\\b${id}\\b[^}]*\\}) of (?:\\(0, \\w+\\.)?(\\w+)\\)?\\(`, 'g'))) {
      const fn = m[2];
      const open = m.index + m[0].length - 1;
      const args = splitArgs(text.slice(open + 1, matching(text, open)));
      const pos = m.index;
      // `[x, attr]`: the second element is the attr; `{ …, attr }`: by name.
      const destructured = m[1];
      if (destructured.startsWith('[') && destructured.slice(1, -1).split(',')[1]?.trim() !== id) continue;
      if (destructured.startsWith('{') && !new RegExp(`(^|[{,\\s])${id}\\s*[,}]`).test(destructured)) continue;
      const resolve = (): Resolved | null => {
        if (fn === 'okItems' && args.length === 3) return item(this.expr(args[2], pos, depth + 1));
        if (fn === 'records' && args.length === 4) return item(this.expr(args[3], pos, depth + 1));
        if (fn === 'each' && args.length === 2) return this.expr(args[1], pos, depth + 1);
        return this.generator(fn, depth + 1);
      };
      bindings.push({ index: m.index, loop: true, resolve });
    }
    const inScope = bindings.filter((b) => this.inScope(b.index, at, b.loop)).sort((a, b) => b.index - a.index);
    if (inScope.length > 0) return inScope[0].resolve();
    return this.parameter(id, at, depth);
  }

  /** A function's parameter: what each call of the function in this file passes. */
  private parameter(id: string, at: number, depth: number): Resolved | null {
    const text = this.src.text;
    let fn: { name: string; index: number } | null = null;
    for (const m of text.slice(0, at).matchAll(/(?:function\*? (\w+)\(|const (\w+) = \()([^)]*)\)/g)) {
      const params = m[3].split(',').map((p) => p.split(':')[0].trim());
      const body = text.indexOf('{', m.index + m[0].length);
      if (params.includes(id) && matching(text, body) > at) fn = { name: m[1] ?? m[2], index: params.indexOf(id) };
    }
    if (fn === null) return null;
    const found: Resolved = { patterns: [], anchored: true };
    for (const m of text.matchAll(new RegExp(`(?<![\\w.])${fn.name}\\(`, 'g'))) {
      const open = m.index + m[0].length - 1;
      const before = text.slice(Math.max(0, m.index - 16), m.index);
      if (/function\*? $|const $/.test(before)) continue;
      const arg = splitArgs(text.slice(open + 1, matching(text, open)))[fn.index];
      const r = arg === undefined ? null : this.expr(arg, m.index, depth + 1);
      if (r === null) continue;
      found.patterns.push(...r.patterns);
      found.anchored &&= r.anchored;
    }
    return found.patterns.length > 0 ? found : null;
  }

  /** The attr a generator of records yields (`meterPoints(ctx)`, `debtRecords(ctx)`), from its own file. */
  private generator(fn: string, depth: number): Resolved | null {
    for (const src of this.all) {
      const m = new RegExp(`function\\*? ${fn}\\(`).exec(src.text);
      if (!m) continue;
      const body = src.text.indexOf('{', src.text.indexOf(')', m.index));
      const end = matching(src.text, body);
      const r = new Resolver(src, this.all);
      const found: Resolved = { patterns: [], anchored: true };
      for (const y of src.text.slice(body, end).matchAll(/yield \[[^,\]]+,\s*|\.push\(\{[^}]*\battr\b/g)) {
        const pos = body + y.index + y[0].length;
        const e = y[0].startsWith('yield') ? readArg(src.text, pos) : 'attr';
        const one = r.expr(e, pos, depth + 1);
        if (one === null) continue;
        found.patterns.push(...one.patterns);
        found.anchored &&= one.anchored;
      }
      return found.patterns.length > 0 ? found : null;
    }
    return null;
  }

  /**
   * Whether a binding at `index` is seen at `at`: a `const` until its block closes; a loop's
   * variable inside the loop's body (its block, or its one statement).
   */
  private inScope(index: number, at: number, loop: boolean): boolean {
    const text = this.src.text;
    if (loop) {
      const header = matching(text, text.indexOf('(', index));
      let i = header + 1;
      while (/\s/.test(text[i])) i++;
      if (text[i] === '{') return at < matching(text, i);
      return at < text.indexOf(';', i) || at < text.indexOf('\n', i);
    }
    let depth = 0;
    for (let i = index; i < at; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth < 0) return false;
    }
    return true;
  }
}
