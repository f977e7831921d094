import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';

/**
 * The mapping's YAML as nodes that know their line: every error of a mapping names the line a
 * person reviews (the `yaml` package keeps each node's offset; its LineCounter turns it to a line).
 */
export class MappingError extends Error {
  constructor(readonly problems: { line: number; detail: string }[], readonly file: string) {
    super(problems.map((p) => `${file}:${p.line}: ${p.detail}`).join('\n'));
  }
}

export class Yaml {
  readonly problems: { line: number; detail: string }[] = [];
  private readonly lines = new LineCounter();
  readonly root: Node | null;

  constructor(text: string, readonly file: string) {
    const doc = parseDocument(text, { lineCounter: this.lines, uniqueKeys: true });
    for (const e of doc.errors) this.problems.push({ line: e.linePos?.[0].line ?? 1, detail: e.message.split('\n')[0] });
    this.root = (doc.contents as Node | null) ?? null;
  }

  line(node: Node | null | undefined): number {
    const offset = node?.range?.[0];
    return offset === undefined ? 1 : this.lines.linePos(offset).line;
  }

  fail(node: Node | null | undefined, detail: string): void {
    this.problems.push({ line: this.line(node), detail });
  }

  /** The entries of a map, each key's text with its value node; anything else is an error. */
  entries(node: Node | null | undefined, what: string): [string, Node, number][] {
    if (!isMap(node)) {
      this.fail(node, `${what} must be a map`);
      return [];
    }
    return (node as YAMLMap<Node, Node>).items.map((pair) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      return [key, pair.value as Node, this.line(pair.key)];
    });
  }

  get(node: Node | null | undefined, key: string): Node | undefined {
    if (!isMap(node)) return undefined;
    const pair = (node as YAMLMap<Node, Node>).items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    return (pair?.value as Node | undefined) ?? undefined;
  }

  /** Keys of a map outside `known` are errors: a misspelt option must not be ignored. */
  only(node: Node | null | undefined, known: readonly string[], what: string): void {
    for (const [key, , line] of isMap(node) ? this.entries(node, what) : []) {
      if (!known.includes(key)) this.problems.push({ line, detail: `${what}: unknown option "${key}" (one of ${known.join(', ')})` });
    }
  }

  str(node: Node | null | undefined, what: string): string | undefined {
    if (node === undefined || node === null) return undefined;
    if (isScalar(node) && node.value !== null && typeof node.value !== 'object') return String(node.value);
    this.fail(node, `${what} must be a text`);
    return undefined;
  }

  strings(node: Node | null | undefined, what: string): string[] | undefined {
    if (node === undefined || node === null) return undefined;
    if (isScalar(node)) return [String(node.value)];
    if (!isSeq(node)) {
      this.fail(node, `${what} must be a list`);
      return undefined;
    }
    return node.items.map((item) => this.str(item as Node, what) ?? '');
  }

  value(node: Node | null | undefined): unknown {
    if (isScalar(node)) return node.value;
    return node && 'toJSON' in node ? (node as { toJSON(): unknown }).toJSON() : undefined;
  }

  isMap(node: Node | null | undefined): boolean {
    return isMap(node);
  }

  isScalar(node: Node | null | undefined): boolean {
    return isScalar(node);
  }

  isSeq(node: Node | null | undefined): node is Node & { items: Node[] } {
    return isSeq(node);
  }
}
