// An independent reading of docs/spec/events-catalogue.md, used only by tests to cross-check the
// hand-written catalogue. It shares no code with events/catalogue: if both read the spec the
// same way by accident of shared code, the cross-check would prove nothing.

export type FieldType =
  | { kind: 'string' | 'integer' | 'number' | 'boolean' | 'free_object' }
  | { kind: 'array'; items: FieldType }
  | { kind: 'object'; fields: Fields };
export type Fields = Record<string, { type: FieldType; optional: boolean }>;

export interface SpecEntry {
  type: string;
  version: string;
  section: string;
  fields: Fields;
  partial: boolean;
}

const PRIMITIVES: Record<string, FieldType> = {
  str: { kind: 'string' },
  int: { kind: 'integer' },
  num: { kind: 'number' },
  bool: { kind: 'boolean' },
  obj: { kind: 'free_object' },
};
const TYPE_VERSION = /^(.+)-(v\d+|\d+(?:\.\d+)+)$/;

class SpecError extends Error {}

/** Splits at commas/semicolons that are not inside (), [] or {}. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if ('([{'.includes(char)) depth++;
    if (')]}'.includes(char)) depth--;
    if ((char === ',' || char === ';') && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

class SharedTypes {
  private readonly raw = new Map<string, string>();
  private readonly resolved = new Map<string, Fields>();

  constructor(lines: string[]) {
    for (const line of lines) {
      const match = /^- (\w+)(?: \(([^)]*)\))?: (.+)$/.exec(line);
      if (!match) throw new SpecError(`unreadable shared type line: ${line}`);
      this.raw.set(match[1], match[3]);
      const declaredCount = /^(\d+) fields$/.exec(match[2] ?? '');
      if (declaredCount && Object.keys(this.fields(match[1])).length !== Number(declaredCount[1])) {
        throw new SpecError(`${match[1]} does not have the ${declaredCount[1]} fields it declares`);
      }
    }
  }

  has(name: string): boolean {
    return this.raw.has(name);
  }

  fields(name: string): Fields {
    const cached = this.resolved.get(name);
    if (cached) return cached;
    const body = this.raw.get(name);
    if (body === undefined) throw new SpecError(`unknown shared type ${name}`);
    const fields = parseFields(body, this);
    this.resolved.set(name, fields);
    return fields;
  }
}

function parseType(expression: string, shared: SharedTypes): FieldType {
  const text = expression.trim();
  const array = /^\[(.+)\]$/.exec(text);
  if (array) return { kind: 'array', items: parseType(array[1], shared) };
  const inline = /^\{(.+)\}$/.exec(text);
  if (inline) return { kind: 'object', fields: parseFields(inline[1], shared) };
  if (PRIMITIVES[text]) return PRIMITIVES[text];
  if (shared.has(text)) return { kind: 'object', fields: shared.fields(text) };
  throw new SpecError(`unknown type ${JSON.stringify(text)}`);
}

/**
 * A field list: `a int, b, c (str), d? [T]`, `x, y bool; z? str`, a shared type name alone, or
 * `SharedType plus <list>`. Bare names take the type of the next typed name.
 */
function parseFields(body: string, shared: SharedTypes): Fields {
  const text = body.trim();
  if (shared.has(text)) return { ...shared.fields(text) };
  const plus = /^(\w+) plus (.+)$/.exec(text);
  if (plus && shared.has(plus[1])) return { ...shared.fields(plus[1]), ...parseFields(plus[2], shared) };

  const fields: Fields = {};
  let pending: Array<{ name: string; optional: boolean }> = [];
  for (const rawItem of splitTopLevel(text)) {
    const item = rawItem.replace(/\s*\(required\)$/, '');
    if (item === 'the six bool flags above') {
      const flags = Object.entries(shared.fields('LedgerEntry')).filter(([, f]) => f.type.kind === 'boolean');
      if (flags.length !== 6) throw new SpecError('LedgerEntry does not have six bool flags');
      for (const [name, field] of flags) fields[name] = field;
      continue;
    }
    const match = /^(\w+)(\?)?(?:\s+(.+))?$/.exec(item);
    if (!match) throw new SpecError(`unreadable field ${JSON.stringify(item)}`);
    pending.push({ name: match[1], optional: match[2] === '?' });
    if (match[3] === undefined) continue;
    const group = /^\((?:all )?(\w+)\)$/.exec(match[3]);
    const type = parseType(group ? group[1] : match[3], shared);
    for (const field of pending) fields[field.name] = { type, optional: field.optional };
    pending = [];
  }
  if (pending.length > 0) throw new SpecError(`fields without a type: ${pending.map((p) => p.name).join(', ')}`);
  return fields;
}

/** `.accepted.other_supplier` replaces as many trailing segments of `base` as it has. */
function expandName(name: string, base: string): string {
  if (name.startsWith('...')) {
    // `...-await-pre-termination-flow-step.initiated`: the ellipsis is `base` up to where the
    // first hyphenated word of the suffix (`-await`) starts in it.
    const suffix = name.slice(3);
    const firstWord = /^-[^-.]+/.exec(suffix)?.[0];
    const at = firstWord ? base.indexOf(firstWord) : -1;
    if (at < 0) throw new SpecError(`cannot expand ${name} against ${base}`);
    return base.slice(0, at) + suffix;
  }
  if (name.startsWith('.')) {
    const replaced = name.slice(1).split('.');
    const segments = base.split('.');
    return [...segments.slice(0, segments.length - replaced.length), ...replaced].join('.');
  }
  if (!name.includes('.')) {
    // `resolution_cancelled-v2`, `requested-v3`: a sibling of the line's first type.
    return [...base.split('.').slice(0, -1), name].join('.');
  }
  return name;
}

function parseHead(head: string): Array<{ type: string; version: string }> {
  const items = head.split(/, | and /).map((item) => item.trim());
  const first = TYPE_VERSION.exec(items[0]);
  if (!first) throw new SpecError(`unreadable entry head ${JSON.stringify(head)}`);
  return items.map((item) => {
    const match = TYPE_VERSION.exec(item);
    if (!match) throw new SpecError(`unreadable entry name ${JSON.stringify(item)}`);
    return { type: expandName(match[1], first[1]), version: match[2] };
  });
}

function withoutField(fields: Fields, name: string): Fields {
  if (!(name in fields)) throw new SpecError(`no field ${name} to remove`);
  const { [name]: _removed, ...rest } = fields;
  return rest;
}

function replaceField(fields: Fields, name: string, replacement: Fields): Fields {
  if (!(name in fields)) throw new SpecError(`no field ${name} to replace`);
  return Object.fromEntries(
    Object.entries(fields).flatMap(([key, field]) => (key === name ? Object.entries(replacement) : [[key, field]])),
  );
}

class EntriesReader {
  readonly entries: SpecEntry[] = [];
  private section = '';

  constructor(private readonly shared: SharedTypes) {}

  startSection(title: string): void {
    this.section = title;
  }

  private previous(): SpecEntry {
    const last = this.entries[this.entries.length - 1];
    if (!last) throw new SpecError('"the same" with nothing before it');
    return last;
  }

  /** "the accepted fields": the latest entry of this section with a name segment starting `accepted`. */
  private named(word: string): Fields {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const candidate = this.entries[i];
      if (candidate.section !== this.section) break;
      if (candidate.type.split('.').some((segment) => segment.startsWith(word))) return candidate.fields;
    }
    throw new SpecError(`no "${word}" entry before this line`);
  }

  private latestOf(type: string): SpecEntry {
    const found = [...this.entries].reverse().find((e) => e.type === type);
    if (!found) throw new SpecError(`no earlier version of ${type}`);
    return found;
  }

  private add(type: string, version: string, fields: Fields, partial = false): void {
    this.entries.push({ type, version, section: this.section, fields, partial });
  }

  /** The fields each of `count` entries gets from one body (bodies may give each entry its own). */
  private resolve(body: string, count: number): Fields[] {
    const same = (fields: Fields) => Array.from({ length: count }, () => fields);
    let m: RegExpExecArray | null;
    if ((m = /^the same(?: fields)? plus (.+)$/.exec(body))) {
      return same({ ...this.previous().fields, ...parseFields(m[1], this.shared) });
    }
    if ((m = /^the same fields with (.+) in place of (\w+)$/.exec(body))) {
      const replacements = Object.entries(parseFields(m[1], this.shared));
      if (replacements.length !== count) throw new SpecError('one replacement per entry expected');
      const base = this.previous().fields;
      const replaced = m[2];
      return replacements.map(([name, field]) => replaceField(base, replaced, { [name]: field }));
    }
    if ((m = /^the same with (.+)$/.exec(body))) {
      const base = this.previous().fields;
      const changes = parseFields(m[1], this.shared);
      for (const name of Object.keys(changes)) if (!(name in base)) throw new SpecError(`no field ${name}`);
      return same({ ...base, ...changes });
    }
    if ((m = /^the (\w+) fields without (\w+), plus (.+)$/.exec(body))) {
      return same({ ...withoutField(this.named(m[1]), m[2]), ...parseFields(m[3], this.shared) });
    }
    if ((m = /^the (\w+) fields plus (.+)$/.exec(body))) {
      return same({ ...this.named(m[1]), ...parseFields(m[2], this.shared) });
    }
    return same(parseFields(body, this.shared));
  }

  readLine(line: string): void {
    const dispute = /^- These gas dispute events each carry the (\w+) fields, listed as `<type>-(\w+)`: (.+)\.$/.exec(line);
    if (dispute) {
      const fields = this.shared.fields(dispute[1]);
      for (const group of dispute[3].split(';')) {
        const names = group.split(',').map((n) => n.trim());
        for (const name of names) this.add(expandName(name, names[0]), dispute[2], fields);
      }
      return;
    }
    const match = /^- ([^:]+): (.+)$/.exec(line);
    if (!match) throw new SpecError(`unreadable entry line: ${line}`);
    const targets = parseHead(match[1]);
    const body = match[2].replace(/\.$/, '');

    const cutOff = /^the listing is cut off after the field (\w+); the fields after it: not shown$/.exec(body);
    if (cutOff) {
      // The cut-off entry belongs to the family listed just before it (the gas dispute events):
      // it shows that family's fields up to and including the named one.
      const shown: Fields = {};
      for (const [name, field] of Object.entries(this.previous().fields)) {
        shown[name] = field;
        if (name === cutOff[1]) break;
      }
      if (!(cutOff[1] in shown)) throw new SpecError(`cut-off field ${cutOff[1]} not in the previous entry`);
      for (const t of targets) this.add(t.type, t.version, shown, true);
      return;
    }

    const [first, ...more] = body.split(/\. (?=(?:[\w.-]+-)?v\d)/);
    const asOther = /^as ([\w.-]+)-(v\d+) with (.+) in place of (\w+)$/.exec(first);
    const resolved = asOther
      ? targets.map((t) => {
          const base = this.entries.find((e) => e.type === expandName(asOther[1], t.type) && e.version === asOther[2]);
          if (!base) throw new SpecError(`no entry ${asOther[1]}-${asOther[2]}`);
          return replaceField(base.fields, asOther[4], parseFields(asOther[3], this.shared));
        })
      : this.resolve(first, targets.length);
    targets.forEach((t, i) => this.add(t.type, t.version, resolved[i]));

    for (const sentence of more) {
      const adds = /^(?:([\w.-]+)-)?(v\d+) adds (.+)$/.exec(sentence);
      if (adds) {
        const type = adds[1] ? expandName(adds[1], targets[0].type) : targets[0].type;
        this.add(type, adds[2], { ...this.latestOf(type).fields, ...parseFields(adds[3], this.shared) });
        continue;
      }
      const own = /^(?:([\w.-]+)-)?(v\d+): (.+)$/.exec(sentence);
      if (!own) throw new SpecError(`unreadable sentence ${JSON.stringify(sentence)}`);
      const type = own[1] ? expandName(own[1], targets[0].type) : targets[0].type;
      this.add(type, own[2], this.resolve(own[3], 1)[0]);
    }
  }
}

/** Every type-version of the "## Events" part of the catalogue, with its fields. */
export function parseEventsCatalogue(markdown: string): SpecEntry[] {
  const lines = markdown.split('\n').map((l) => l.trimEnd());
  const start = lines.indexOf('## Events');
  if (start < 0) throw new SpecError('no "## Events" section');

  const sections = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (line.startsWith('### ')) {
      current = line.slice(4);
      sections.set(current, []);
    } else if (current && line.startsWith('- ')) sections.get(current)?.push(line);
  }

  const shared = new SharedTypes(sections.get('Shared types') ?? []);
  const reader = new EntriesReader(shared);
  for (const [title, entryLines] of sections) {
    if (title === 'Conventions' || title === 'Shared types') continue;
    reader.startSection(title);
    for (const line of entryLines) reader.readLine(line);
  }
  return reader.entries;
}
