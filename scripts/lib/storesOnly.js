// "Only stores touch tables" (docs/architecture.md), as an ESLint rule of eslint.config.js:
// outside a store, no code calls a knex handle or query builder (`db('table')`, `db.raw(…)`,
// `trx.insert(…)`, `query.where(…)`) nor imports `knex` or `pg` for its values. Type-aware: what
// counts is the type of the callee (declared by the knex package), whatever the variable is called.
// A handle may still be passed on, and a transaction opened (`db.transaction`: services open one and
// hand it to the stores). Tested by test/unit/scripts/lintRules.test.ts.

/** The knex package's types whose calls read or write tables. */
const KNEX_TYPES = new Set(['Knex', 'Transaction', 'QueryBuilder', 'QueryInterface', 'Raw', 'SchemaBuilder', 'FunctionHelper', 'Ref', 'JoinClause']);
/** Calls on a handle that touch no table: opening, ending or inspecting a transaction, closing the pool. */
const ALLOWED = new Set(['transaction', 'commit', 'rollback', 'isCompleted', 'destroy']);
const DRIVERS = new Set(['knex', 'pg']);

function isKnex(type) {
  for (const t of type.isUnion() ? type.types : [type]) {
    const sym = t.aliasSymbol ?? t.getSymbol();
    if (!sym || !KNEX_TYPES.has(sym.getName())) continue;
    if ((sym.getDeclarations() ?? []).some((d) => /[\\/]node_modules[\\/]knex[\\/]/.test(d.getSourceFile().fileName))) return true;
  }
  return false;
}

const MESSAGE = 'Only stores touch tables (docs/architecture.md, "Stores"): move this query into a store (`<feature>/store.ts`, `*Store.ts` or db/stores/) and call it.';

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: { type: 'problem', schema: [], messages: { query: `{{what}}: ${MESSAGE}`, driver: `a value import of '{{name}}': ${MESSAGE}` } },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services.program.getTypeChecker();
    const typeOf = (node) => checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
    return {
      ImportDeclaration(node) {
        if (!DRIVERS.has(node.source.value) || node.importKind === 'type') return;
        if (node.specifiers.length > 0 && node.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type')) return;
        context.report({ node, messageId: 'driver', data: { name: node.source.value } });
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === 'MemberExpression') {
          const name = callee.property.type === 'Identifier' ? callee.property.name : '[…]';
          // One report per chain: `db('t').where(…).first()` is reported at `db('t')`.
          if (ALLOWED.has(name)) return;
          // A handle called through a property (`deps.db('outbox')`, `this.knex.raw(…)` is a method):
          // the property itself is the knex handle.
          if (isKnex(typeOf(callee))) return context.report({ node, messageId: 'query', data: { what: `a query on a knex handle (.${name})` } });
          if (callee.object.type === 'CallExpression') return;
          if (isKnex(typeOf(callee.object))) context.report({ node, messageId: 'query', data: { what: `a query (.${name})` } });
        } else if (isKnex(typeOf(callee))) {
          context.report({ node, messageId: 'query', data: { what: 'a query on a knex handle' } });
        }
      },
    };
  },
};

// "One owner per table" (docs/architecture.md, "Who owns which table"): the first table a query
// names must be one its file's folder owns. The owners are data, `{ owners: { table: folder } }` in
// eslint.config.js: the Account's tables are db/stores/'s, every other table its feature's (or
// db/'s, events/'s), one folder each (a list of folders is refused by the rule's schema). A table
// the map does not know is an error too, so a new table is given an owner. What counts as naming a table:
// - a knex handle called (`db('accounts')`, `trx('meter_points as mp')`, `deps.db('outbox')`) or a
//   builder's `.from(…)`, `.into(…)`, `.table(…)`: the first argument, a string or a string-literal
//   type (`table: 'notes' | 'post_import_notes'`); joins are the first table's query's business;
// - SQL in a string or template (raw SQL, a correlated subquery built as text): the first table
//   after FROM, JOIN, INTO, UPDATE or TABLE (upper case, as the project writes SQL; a function after
//   FROM, `jsonb_to_recordset(…)`, is not a table).
// A table only known at run time (a `string` argument) is allowed in db/ and events/ alone, where
// the Account's generic code walks its tables; elsewhere the call must name its table.
const SQL_TABLE = /\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:ONLY\s+|IF\s+(?:NOT\s+)?EXISTS\s+)*"?([A-Za-z_][A-Za-z0-9_]*)"?(\s*[(.\u0000])?/g;
/** A template's expressions stand in the text as this mark: `FROM ${table}` names no table by name. */
const HOLE = '\u0000';
/** The first table an SQL text names (see above); undefined when none. */
function firstSqlTable(text, ctes = ctesOf(text)) {
  // FROM that names no table: `a IS DISTINCT FROM b`, `extract(epoch FROM t)`; a CTE's name is no table either.
  const plain = text.replace(/\b(?:DISTINCT|EPOCH|YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|DOW|DOY|WEEK)\s+FROM\b/gi, ' ');
  for (const m of plain.matchAll(SQL_TABLE)) {
    const [, keyword, name, after] = m;
    // A function (`FROM unnest(`; after INTO or TABLE, `(` opens the column list), a qualified column, a keyword (`FOR UPDATE SKIP LOCKED`), a CTE.
    if ((after && (after.trim() !== '(' || keyword === 'FROM' || keyword === 'JOIN')) || /^[A-Z]+$/.test(name) || ctes.has(name)) continue;
    return name;
  }
  return undefined;
}
/**
 * The common table expressions a text defines: `WITH x AS (`, `, y AS MATERIALIZED (` in SQL, and
 * knex's `.with('x', …)`. Read over the whole file, as a query's parts may be built apart.
 */
function ctesOf(text) {
  const sql = [...text.matchAll(/(?:\bWITH(?:\s+RECURSIVE)?|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s+AS\s+(?:(?:NOT\s+)?MATERIALIZED\s+)?\(/g)].map((m) => m[1]);
  const knex = [...text.matchAll(/\.with(?:Recursive|Materialized|NotMaterialized)?\(\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]/g)].map((m) => m[1]);
  return new Set([...sql, ...knex]);
}
const TABLE_METHODS = new Set(['from', 'into', 'table']);

/** The owner of `file` (relative to the root) for `table`, or why not. */
function ownerOf(owners, table) {
  return Object.prototype.hasOwnProperty.call(owners, table) ? owners[table] : undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const ownerRule = {
  meta: {
    type: 'problem',
    schema: [{ type: 'object', properties: { owners: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['owners'], additionalProperties: false }],
    messages: {
      foreign: "table '{{table}}' is owned by {{owner}}/, not by {{folder}}/ (docs/architecture.md, \"Who owns which table\"): call a function of {{owner}}/ instead.",
      unknown: "table '{{table}}' has no owner: give it one in eslint.config.js's TABLE_OWNERS (docs/architecture.md, \"Who owns which table\").",
      dynamic: "a query whose table is not named (a `string` argument): name it, so its owner can be checked (docs/architecture.md, \"Who owns which table\").",
    },
  },
  create(context) {
    const owners = context.options[0]?.owners ?? {};
    const file = require('node:path').relative(context.cwd, context.filename).split(require('node:path').sep).join('/');
    const folder = file.split('/').slice(0, -1).join('/');
    const inStorage = /^(db|events)(\/|$)/.test(folder);
    const services = context.sourceCode.parserServices;
    const checker = services.program.getTypeChecker();
    const typeOf = (node) => checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
    const ctes = ctesOf(context.sourceCode.text);
    const check = (node, table) => {
      table = table.trim().split(/\s+/)[0];
      if (table.includes('.')) table = table.split('.').pop();
      if (ctes.has(table)) return;
      const owner = ownerOf(owners, table);
      if (owner === undefined) return context.report({ node, messageId: 'unknown', data: { table } });
      if (folder !== owner && !folder.startsWith(`${owner}/`)) context.report({ node, messageId: 'foreign', data: { table, owner, folder } });
    };
    /** The table names an argument stands for: its literal, or its string-literal type(s); null when not known. */
    const tablesOf = (arg) => {
      if (!arg) return [];
      if (arg.type === 'Literal') return typeof arg.value === 'string' ? [arg.value] : [];
      if (arg.type === 'TemplateLiteral' && arg.expressions.length === 0) return [arg.quasis[0].value.cooked];
      if (arg.type === 'ObjectExpression' || arg.type === 'ArrowFunctionExpression' || arg.type === 'FunctionExpression') return []; // a subquery or an aliased object
      const t = typeOf(arg);
      const parts = t.isUnion() ? t.types : [t];
      if (parts.every((p) => p.isStringLiteral())) return parts.map((p) => p.value);
      if (parts.some((p) => p.flags & 4 /* String */ || p.flags & 128 /* StringLiteral */)) return null;
      return []; // a builder, a Raw, a callback: no table by name
    };
    const checkArg = (node, arg) => {
      const tables = tablesOf(arg);
      if (tables === null) return inStorage ? undefined : context.report({ node, messageId: 'dynamic' });
      for (const t of tables) check(node, t);
    };
    const sql = (node, text) => {
      const table = firstSqlTable(text, ctes);
      if (table !== undefined) check(node, table);
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string' && node.parent?.type !== 'ImportDeclaration' && node.parent?.type !== 'ExportNamedDeclaration' && node.parent?.type !== 'ExportAllDeclaration') sql(node, node.value);
      },
      TemplateLiteral(node) {
        sql(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(HOLE));
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
          if (isKnex(typeOf(callee))) return checkArg(node, node.arguments[0]);
          if (TABLE_METHODS.has(callee.property.name) && isKnex(typeOf(callee.object))) return checkArg(node, node.arguments[0]);
        } else if (callee.type !== 'MemberExpression' && isKnex(typeOf(callee))) {
          checkArg(node, node.arguments[0]);
        }
      },
    };
  },
};

module.exports = { rules: { 'stores-only': rule, 'table-owner': ownerRule }, firstSqlTable };
