// long-file (390 lines): one evaluator whose three questions (a value's definitions, an array's elements, one step back) answer one another.
import ts from 'typescript';

/**
 * What strings an expression of the rules can hold, read with the TypeScript compiler's binder and
 * checker (scripts/fieldCodes.ts asks it for the `attr` of each `IssueList.add(code, attr)` call).
 * Each identifier is followed to its declaration by the checker, whatever the formatting: a `const`
 * to its initialiser (a `let` to its assignments too), a loop's variable to the elements of what it
 * loops over, a destructured name to its place in the tuple or object, a parameter to what the calls
 * of its function pass (with their arguments bound where the call is being followed: a helper called
 * with `'configuration_periods'` gives that list's attrs only), a call to what its function returns
 * or yields. An array's elements are its literal's, what is pushed into it (`set` into a Map, `add`
 * into a Set), and what `filter`, `sort`, `map`, `flatMap`… of another array give. A number (an
 * index, a counter) in a template is an item of a list: `*`.
 *
 * One function is modelled rather than read: loose.ts `each(ctx, pattern)` walks a dot pattern, and
 * the attr of each record it returns is the pattern itself, its `*` the indices.
 */

/** An expression where the calls being followed bind its function's parameters; or a tuple a model gives. */
type Ref = { node: ts.Node; env: Env } | { tuple: Ref[][] };
type Env = ReadonlyMap<ts.ParameterDeclaration, readonly Ref[]>;

const EMPTY: Env = new Map();
/** Methods of arrays (and Maps, Sets) whose result holds the receiver's elements. */
const SAME_ELEMENTS = new Set(['filter', 'sort', 'toSorted', 'slice', 'reverse', 'toReversed', 'values', 'concat']);
/** Methods whose result is one of the receiver's elements. */
const ONE_ELEMENT = new Set(['find', 'findLast', 'at', 'get', 'pop', 'shift']);
/** Methods that add to the receiver: the argument that becomes an element. */
const ADDS: Record<string, (args: readonly ts.Expression[]) => readonly ts.Expression[]> = {
  push: (a) => a,
  unshift: (a) => a,
  add: (a) => a.slice(0, 1),
  set: (a) => a.slice(1, 2),
};
/** Past this depth of following, a branch gives nothing (a recursive walk such as periods.ts's). */
const MAX_DEPTH = 60;

export class AttrPaths {
  private readonly checker: ts.TypeChecker;
  /** Every identifier of the files read, by the symbol it names. */
  private readonly uses = new Map<ts.Symbol, ts.Identifier[]>();
  /** Every call of the files read, by the symbol of the function called. */
  private readonly calls = new Map<ts.Symbol, ts.CallExpression[]>();
  private readonly active = new Set<string>();
  private readonly envIds = new Map<Env, number>();
  private depth = 0;

  constructor(
    private readonly program: ts.Program,
    files: readonly ts.SourceFile[],
  ) {
    this.checker = program.getTypeChecker();
    const index = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const symbol = this.symbolOf(node);
        if (symbol) push(this.uses, symbol, node);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        const symbol = this.symbolOf(node.expression);
        if (symbol) push(this.calls, symbol, node);
      }
      ts.forEachChild(node, index);
    };
    for (const f of files) index(f);
  }

  /** The strings an expression of the files read can hold, `*` for a number; null when none can be read. */
  strings(node: ts.Expression): string[] | null {
    return this.stringsOf({ node, env: EMPTY });
  }

  private stringsOf(ref: Ref): string[] | null {
    if ('node' in ref && ts.isExpression(ref.node) && !ts.isNumericLiteral(ref.node) && this.isNumber(ref.node)) return ['*'];
    const out = new Set<string>();
    let read = false;
    for (const d of this.defs(ref)) {
      const s = this.ownStrings(d);
      if (s === null) continue;
      read = true;
      for (const x of s) out.add(x);
    }
    return read ? [...out] : null;
  }

  private ownStrings(ref: Ref): string[] | null {
    if (!('node' in ref)) return null;
    const n = ref.node;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isNumericLiteral(n)) return [n.text];
    if (ts.isTemplateExpression(n)) {
      let heads = [n.head.text];
      for (const span of n.templateSpans) {
        const parts = this.stringsOf({ node: span.expression, env: ref.env });
        if (parts === null) return null;
        heads = heads.flatMap((h) => parts.map((p) => h + p + span.literal.text));
      }
      return heads;
    }
    return ts.isExpression(n) && this.isNumber(n) ? ['*'] : null;
  }

  private isNumber(e: ts.Expression): boolean {
    return (this.checker.getTypeAtLocation(e).flags & ts.TypeFlags.NumberLike) !== 0;
  }

  /** The values an expression can be: literals, templates, objects, arrays, calls nothing is known of. */
  private defs(ref: Ref): Ref[] {
    return this.guard('defs', ref, () => {
      const back = this.back(ref);
      return back === null ? [ref] : back.flatMap((r) => this.defs(r));
    });
  }

  /** The elements of an array (a Map's values, a Set's members) the expression can be. */
  private elements(ref: Ref): Ref[] {
    return this.guard('elements', ref, () => {
      if (!('node' in ref)) return [];
      const { node: n, env } = ref;
      const out: Ref[] = [];
      if (ts.isIdentifier(n)) out.push(...this.added(n, env));
      if (ts.isArrayLiteralExpression(n)) {
        for (const e of n.elements) out.push(...(ts.isSpreadElement(e) ? this.elements({ node: e.expression, env }) : [{ node: e, env }]));
        return out;
      }
      if (ts.isCallExpression(n)) {
        const produced = this.produced(n, env);
        if (produced !== null) return [...out, ...produced];
      }
      const back = this.back(ref);
      if (back !== null) out.push(...back.flatMap((r) => this.elements(r)));
      return out;
    });
  }

  /** What a call gives as elements, when it is an array method, a generator or a model; null otherwise. */
  private produced(call: ts.CallExpression, env: Env): Ref[] | null {
    const method = this.libMethod(call);
    if (method !== null) {
      const receiver = { node: (call.expression as ts.PropertyAccessExpression).expression, env };
      if (SAME_ELEMENTS.has(method)) return [...this.elements(receiver), ...(method === 'concat' ? call.arguments.flatMap((a) => this.elements({ node: a, env })) : [])];
      if (method === 'map' || method === 'flatMap') {
        const results = this.callbackResults(call.arguments[0], receiver, env);
        return method === 'map' ? results : results.flatMap((r) => this.elements(r));
      }
      if (method === 'from' && call.arguments[0]) return this.elements({ node: call.arguments[0], env });
      return ONE_ELEMENT.has(method) ? null : [];
    }
    const fn = this.callee(call);
    if (fn === null) return null;
    if (isModel(fn, 'each') && call.arguments[1]) return [{ tuple: [[], [{ node: call.arguments[1], env }], []] }];
    if (fn.asteriskToken === undefined) return null;
    const inner = this.bind(fn, call, env);
    const out: Ref[] = [];
    visitBody(fn, (n) => {
      if (ts.isYieldExpression(n) && n.expression) out.push(...(n.asteriskToken ? this.elements({ node: n.expression, env: inner }) : [{ node: n.expression, env: inner }]));
    });
    return out;
  }

  /** What `callback` returns with its first parameter each element of `receiver`. */
  private callbackResults(callback: ts.Expression | undefined, receiver: Ref, env: Env): Ref[] {
    if (callback === undefined || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return [];
    const inner = new Map(env);
    if (callback.parameters[0]) inner.set(callback.parameters[0], this.elements(receiver));
    return returned(callback).map((node) => ({ node, env: inner }));
  }

  /** One step back from an expression to what gives it its value; null when it is a value itself. */
  private back(ref: Ref): Ref[] | null {
    if (!('node' in ref)) return null;
    const { node: n, env } = ref;
    const at = (node: ts.Node): Ref => ({ node, env });
    if (ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isNonNullExpression(n) || ts.isSatisfiesExpression(n) || ts.isTypeAssertionExpression(n) || ts.isAwaitExpression(n)) return [at(n.expression)];
    if (ts.isConditionalExpression(n)) return [at(n.whenTrue), at(n.whenFalse)];
    if (ts.isBinaryExpression(n) && (n.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || n.operatorToken.kind === ts.SyntaxKind.BarBarToken)) return [at(n.left), at(n.right)];
    if (ts.isIdentifier(n)) return this.identifier(n, env);
    if (ts.isPropertyAccessExpression(n)) return this.defs(at(n.expression)).flatMap((d) => this.member(d, n.name.text));
    if (ts.isElementAccessExpression(n)) {
      const arg = n.argumentExpression;
      const keys = ts.isNumericLiteral(arg) || ts.isStringLiteralLike(arg) ? [arg.text] : this.stringsOf(at(arg));
      const targets = this.defs(at(n.expression));
      // A literal's member by a known key (METER_POINT_FIELDS[other]); any member of an object; else any element.
      if (targets.length > 0 && targets.every((t) => 'node' in t && (ts.isObjectLiteralExpression(t.node) || ts.isArrayLiteralExpression(t.node)))) {
        if (keys !== null && !keys.includes('*')) return targets.flatMap((t) => keys.flatMap((k) => this.member(t, k)));
        if (targets.every((t) => 'node' in t && ts.isObjectLiteralExpression(t.node))) return targets.flatMap((t) => this.members(t));
      }
      return this.elements(at(n.expression));
    }
    if (ts.isCallExpression(n)) {
      const method = this.libMethod(n);
      if (method !== null) return ONE_ELEMENT.has(method) ? this.elements(at((n.expression as ts.PropertyAccessExpression).expression)) : null;
      const fn = this.callee(n);
      if (fn === null || fn.asteriskToken !== undefined || isModel(fn, 'each')) return null;
      const inner = this.bind(fn, n, env);
      return returned(fn).map((node) => ({ node, env: inner }));
    }
    return null;
  }

  /** A name's value: its declaration's, followed by the checker. */
  private identifier(id: ts.Identifier, env: Env): Ref[] | null {
    const symbol = this.symbolOf(id);
    if (!symbol) return null;
    const out: Ref[] = [];
    for (const decl of symbol.declarations ?? []) {
      if (ts.isVariableDeclaration(decl) && ts.isIdentifier(decl.name)) out.push(...this.variable(decl, symbol, env));
      else if (ts.isBindingElement(decl)) out.push(...this.binding(decl, env));
      else if (ts.isParameter(decl)) out.push(...this.parameter(decl, env));
      else return null;
    }
    return out;
  }

  private variable(decl: ts.VariableDeclaration, symbol: ts.Symbol, env: Env): Ref[] {
    const loop = decl.parent.parent;
    if (ts.isForOfStatement(loop)) return this.elements({ node: loop.expression, env });
    const out: Ref[] = decl.initializer ? [{ node: decl.initializer, env }] : [];
    for (const use of this.uses.get(symbol) ?? []) {
      const p = use.parent;
      if (ts.isBinaryExpression(p) && p.left === use && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) out.push({ node: p.right, env });
    }
    return out;
  }

  /** A destructured name: its place in the tuple or object of the declaration or parameter. */
  private binding(decl: ts.BindingElement, env: Env): Ref[] {
    const keys: string[] = [];
    let node: ts.Node = decl;
    while (ts.isBindingElement(node)) {
      const pattern: ts.BindingPattern = node.parent;
      if (ts.isArrayBindingPattern(pattern)) keys.unshift(String(pattern.elements.indexOf(node)));
      else keys.unshift(propertyName(node.propertyName ?? node.name) ?? '');
      node = pattern.parent;
    }
    let values: Ref[];
    if (ts.isParameter(node)) values = this.parameter(node, env);
    else if (ts.isVariableDeclaration(node)) {
      const loop = node.parent.parent;
      values = ts.isForOfStatement(loop) ? this.elements({ node: loop.expression, env }) : node.initializer ? [{ node: node.initializer, env }] : [];
    } else return [];
    for (const k of keys) values = values.flatMap((v) => this.defs(v)).flatMap((d) => this.member(d, k));
    return values;
  }

  /**
   * A parameter: what the call being followed passes; an array method's callback's first
   * parameter, each element of the array; else what every call of its function passes.
   */
  private parameter(decl: ts.ParameterDeclaration, env: Env): Ref[] {
    const bound = env.get(decl);
    if (bound) return [...bound];
    const fn = decl.parent;
    const index = fn.parameters.indexOf(decl);
    const call = fn.parent;
    if (ts.isCallExpression(call) && call.arguments.includes(fn as ts.Expression) && this.libMethod(call) !== null) {
      return index === 0 ? this.elements({ node: (call.expression as ts.PropertyAccessExpression).expression, env }) : [];
    }
    const symbol = functionSymbol(fn, this.checker);
    return (symbol ? (this.calls.get(symbol) ?? []) : []).flatMap((c) => (c.arguments[index] ? [{ node: c.arguments[index], env: EMPTY }] : []));
  }

  /** What is added to the variable a name is, where the files use it: pushed, set, added. */
  private added(id: ts.Identifier, env: Env): Ref[] {
    const symbol = this.symbolOf(id);
    const out: Ref[] = [];
    for (const use of (symbol && this.uses.get(symbol)) ?? []) {
      const access = use.parent;
      if (!ts.isPropertyAccessExpression(access) || access.expression !== use || !ts.isCallExpression(access.parent) || access.parent.expression !== access) continue;
      const name = access.name.text;
      if (!(name in ADDS) || this.libMethod(access.parent) === null) continue;
      for (const a of ADDS[name](access.parent.arguments)) out.push(...(ts.isSpreadElement(a) ? this.elements({ node: a.expression, env }) : [{ node: a, env }]));
    }
    return out;
  }

  /** A member of a value: an object literal's property, a tuple's element, a model's. */
  private member(d: Ref, key: string): Ref[] {
    if (!('node' in d)) return d.tuple[Number(key)] ?? [];
    const n = d.node;
    if (ts.isObjectLiteralExpression(n)) {
      for (const p of n.properties) {
        if (ts.isPropertyAssignment(p) && propertyName(p.name) === key) return [{ node: p.initializer, env: d.env }];
        if (ts.isShorthandPropertyAssignment(p) && p.name.text === key) return [{ node: p.name, env: d.env }];
      }
      return [];
    }
    if (ts.isArrayLiteralExpression(n) && /^\d+$/.test(key)) {
      if (n.elements.some(ts.isSpreadElement)) return this.elements(d);
      const e = n.elements[Number(key)];
      return e ? [{ node: e, env: d.env }] : [];
    }
    return [];
  }

  private members(d: Ref): Ref[] {
    if (!('node' in d) || !ts.isObjectLiteralExpression(d.node)) return [];
    return d.node.properties.flatMap((p) => (ts.isPropertyAssignment(p) ? [{ node: p.initializer, env: d.env }] : []));
  }

  /** The name of a method of the standard library (an array's, a Map's…) a call calls; null for any other call. */
  private libMethod(call: ts.CallExpression): string | null {
    if (!ts.isPropertyAccessExpression(call.expression)) return null;
    const decl = this.checker.getSymbolAtLocation(call.expression.name)?.declarations?.[0];
    return decl && this.program.isSourceFileDefaultLibrary(decl.getSourceFile()) ? call.expression.name.text : null;
  }

  /** The function a call calls, when it is declared in the sources (a function, or a `const` arrow). */
  private callee(call: ts.CallExpression): ts.FunctionLikeDeclaration | null {
    if (!ts.isIdentifier(call.expression)) return null;
    const decl = this.symbolOf(call.expression)?.declarations?.[0];
    if (decl && ts.isFunctionDeclaration(decl) && decl.body) return decl;
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer))) return decl.initializer;
    return null;
  }

  /** The parameters of `fn` bound to the call's arguments, inside the bindings of the calls followed so far. */
  private bind(fn: ts.FunctionLikeDeclaration, call: ts.CallExpression, env: Env): Env {
    const inner = new Map(env);
    fn.parameters.forEach((p, i) => {
      const a = call.arguments[i];
      if (a && !ts.isSpreadElement(a)) inner.set(p, [{ node: a, env }]);
    });
    return inner;
  }

  private symbolOf(id: ts.Identifier): ts.Symbol | undefined {
    const p = id.parent;
    let s = p && ts.isShorthandPropertyAssignment(p) && p.name === id ? this.checker.getShorthandAssignmentValueSymbol(p) : this.checker.getSymbolAtLocation(id);
    if (s && s.flags & ts.SymbolFlags.Alias) s = this.checker.getAliasedSymbol(s);
    return s;
  }

  /** Runs `f` unless the same question about the same expression is already being answered (a cycle), or too deep. */
  private guard(kind: string, ref: Ref, f: () => Ref[]): Ref[] {
    if (!('node' in ref)) return kind === 'defs' ? [ref] : [];
    let id = this.envIds.get(ref.env);
    if (id === undefined) this.envIds.set(ref.env, (id = this.envIds.size));
    const key = `${kind}:${ref.node.getSourceFile().fileName}:${ref.node.pos}:${ref.node.end}:${id}`;
    if (this.active.has(key) || this.depth > MAX_DEPTH) return [];
    this.active.add(key);
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
      this.active.delete(key);
    }
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function propertyName(name: ts.PropertyName | ts.BindingName): string | null {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : null;
}

/** The symbol a function is called by: its name, or the `const` it is assigned to. */
function functionSymbol(fn: ts.SignatureDeclaration, checker: ts.TypeChecker): ts.Symbol | undefined {
  if (ts.isFunctionDeclaration(fn) && fn.name) return checker.getSymbolAtLocation(fn.name);
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) return checker.getSymbolAtLocation(fn.parent.name);
  return undefined;
}

/** Whether `fn` is the function `name` of account/rules/loose.ts. */
function isModel(fn: ts.FunctionLikeDeclaration, name: string): boolean {
  return ts.isFunctionDeclaration(fn) && fn.name?.text === name && /[/\\]account[/\\]rules[/\\]loose\.ts$/.test(fn.getSourceFile().fileName);
}

/** Visits a function's body, not the bodies of the functions inside it. */
function visitBody(fn: ts.FunctionLikeDeclaration, f: (n: ts.Node) => void): void {
  const walk = (n: ts.Node): void => {
    f(n);
    if (!ts.isFunctionLike(n)) ts.forEachChild(n, walk);
  };
  if (fn.body) ts.forEachChild(fn.body, walk);
}

/** The expressions a function returns (an arrow's body when it is one). */
function returned(fn: ts.FunctionLikeDeclaration): ts.Expression[] {
  if (fn.body && !ts.isBlock(fn.body)) return [fn.body];
  const out: ts.Expression[] = [];
  visitBody(fn, (n) => {
    if (ts.isReturnStatement(n) && n.expression) out.push(n.expression);
  });
  return out;
}
