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

module.exports = { rules: { 'stores-only': rule } };
