// Lint of the whole tree (`npm run lint`; scripts/test.sh runs it). Four groups of rules:
// - everywhere: type-aware checks, among them no promise left floating (an unawaited failure
//   is an unhandled rejection, or a write nobody waits for);
// - workflows/: the workflow sandbox: no Node built-ins, no I/O modules, activities (activities/)
//   and stores imported as types only;
// - the layers of docs/architecture.md: each folder imports only the folders its layer may
//   (`no-restricted-imports`, one entry per folder group below). That no two folders import each
//   other is the other half of `npm run lint`: scripts/folderLoops.ts, which sees the whole tree;
// - only stores touch tables, and each table only in the folder that owns it (scripts/lib/storesOnly.js).
const tseslint = require('typescript-eslint');

const nodeBuiltins = require('node:module').builtinModules.flatMap((m) => [m, `node:${m}`]);

/**
 * The layer table of docs/architecture.md, bottom up: each group's folders and the folders they may
 * import besides their own. Every top-level folder of code is in one group, and a folder that is
 * not listed as allowed is forbidden; `test/`, `bench/` and `examples/` are not product code and
 * may import anything.
 */
const LIB = ['lib'];
const DOMAIN = ['account'];
const STORAGE = ['db', 'events'];
const HTTP = ['http'];
const WORKFLOWS = ['workflows'];
const FEATURES = ['imports', 'suppliers', 'registration', 'paymentInstructions', 'topUps', 'emails', 'maintenance', 'auth', 'ops', 'deploys', 'mapping'];
const ACTIVITIES = ['activities'];
const ENTRY = ['api', 'worker', 'cli', 'scripts'];
const NOT_PRODUCT = ['test', 'bench', 'examples'];
const ALL = [...LIB, ...DOMAIN, ...STORAGE, ...HTTP, ...WORKFLOWS, ...FEATURES, ...ACTIVITIES, ...ENTRY, ...NOT_PRODUCT];

// A new top-level folder of code must take its place in the table: an unlisted one would be held by
// no layer rule at all.
const fs = require('node:fs');
const UNLISTED = fs
  .readdirSync(__dirname, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist', 'data', 'docs', 'bin'].includes(e.name) && !ALL.includes(e.name))
  .filter((e) => fs.readdirSync(`${__dirname}/${e.name}`, { recursive: true }).some((f) => String(f).endsWith('.ts')))
  .map((e) => e.name);
if (UNLISTED.length > 0) {
  throw new Error(`eslint.config.js: folder(s) ${UNLISTED.join(', ')} hold .ts files but have no layer; add each to its group (docs/architecture.md, "Layers").`);
}

const LAYERS = [
  { name: 'lib', folders: LIB, may: [], why: 'lib/ is the bottom layer: it imports nothing outside lib/' },
  { name: 'domain', folders: DOMAIN, may: LIB, why: 'account/ (the domain) imports only lib/' },
  // db/ and events/ are one layer but do not import each other: the table lists only lib/ and account/.
  { name: 'storage and messaging', folders: STORAGE, may: [...LIB, ...DOMAIN], why: 'db/ and events/ import only lib/ and account/' },
  { name: 'http', folders: HTTP, may: [...LIB, ...DOMAIN, ...STORAGE], why: 'http/ is below the features: it imports only lib/, account/, db/ and events/' },
  { name: 'features', folders: FEATURES, may: [...LIB, ...DOMAIN, ...STORAGE, ...HTTP, ...WORKFLOWS, ...FEATURES], why: 'a feature imports the layers below it and other features, never an entry point (api/, worker/, cli/, scripts/) nor test/, bench/, examples/' },
  { name: 'activities', folders: ACTIVITIES, may: [...LIB, ...DOMAIN, ...STORAGE, ...FEATURES], why: 'activities/ imports lib/, account/, db/, events/ and the features, never http/, a workflow, an entry point nor test/, bench/, examples/' },
  { name: 'entry points', folders: ENTRY, may: ALL.filter((f) => !NOT_PRODUCT.includes(f)), why: 'product code never imports test/, bench/ or examples/' },
];

/** Deepest folder level of any .ts file under a top-level folder (a file at level k reaches the root by k `../`). */
const MAX_DEPTH = 5;

/** A regex matching a relative import, from a file `depth` folders below the root, of any of `folders`. */
const reaching = (depth, folders) => `^(\\.\\./){${depth}}(${folders.join('|')})(/|$)`;

/** One config per folder group and file depth, so `../x` from `a/b/c.ts` (a/x) is told apart from `../../x`. */
function layerRules(folders, patternsAt) {
  const configs = [];
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    const files = folders.map((f) => `${f}/${'*/'.repeat(depth - 1)}*.ts`);
    configs.push({ files, rules: { 'no-restricted-imports': ['error', { paths: patternsAt.paths ?? [], patterns: patternsAt.patterns(depth) }] } });
  }
  return configs;
}

/** A regex matching a relative import, from `depth` folders below the root, of a file of `folders` other than its index.ts. */
const pastIndex = (depth, folders) => `^(\\.\\./){${depth}}(${folders.join('|')})/(?!index$).+`;

const layerConfigs = LAYERS.flatMap((layer) =>
  layer.folders.flatMap((folder) => {
    const forbidden = ALL.filter((f) => f !== folder && !layer.may.includes(f));
    // A feature imports another feature only through its surface, `<feature>/index.ts` (types too).
    const otherFeatures = layer.name === 'features' ? FEATURES.filter((f) => f !== folder) : [];
    return layerRules([folder], {
      patterns: (depth) => [
        { regex: reaching(depth, forbidden), caseSensitive: true, message: `${layer.why} (docs/architecture.md, layer "${layer.name}").` },
        ...(otherFeatures.length > 0
          ? [{ regex: pastIndex(depth, otherFeatures), caseSensitive: true, message: 'A feature imports another feature only through its index.ts, its surface (docs/architecture.md, "Each feature\'s surface").' }]
          : []),
      ],
    });
  }),
);

// Workflow code: deterministic (no Node built-ins, no I/O modules); at run time it imports only
// lib/ and workflows/; the activities and stores of the layers below and of the features as types
// only; nothing of http/ or an entry point at all.
const workflowConfigs = layerRules(WORKFLOWS, {
  paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins.' })),
  patterns: (depth) => [
    { group: ['pg', 'knex', '@nats-io/*', 'koa', '@koa/*', 'undici', 'pino'], message: 'Workflow code does no I/O: call an activity.' },
    {
      regex: reaching(depth, [...DOMAIN, ...STORAGE, ...FEATURES, ...ACTIVITIES]),
      caseSensitive: true,
      allowTypeImports: true,
      message: 'Workflows import activities and stores as types only (import type) (docs/architecture.md, layer "workflows").',
    },
    {
      regex: reaching(depth, [...HTTP, ...ENTRY, ...NOT_PRODUCT]),
      caseSensitive: true,
      message: 'Workflows import nothing of http/ or an entry point (docs/architecture.md, layer "workflows").',
    },
  ],
}).map((c) => ({ ...c, rules: { ...c.rules, '@typescript-eslint/consistent-type-imports': 'error' } }));

// "Only stores touch tables" (docs/architecture.md, "Stores"): outside the storage layer (db/,
// events/) and the stores (`store.ts`, `*Store.ts`), no query on a knex handle and no value import
// of knex or pg (scripts/lib/storesOnly.js).
const storesOnly = {
  files: [...LIB, ...DOMAIN, ...HTTP, ...WORKFLOWS, ...FEATURES, ...ACTIVITIES, ...ENTRY].map((f) => `${f}/**/*.ts`),
  ignores: ['**/store.ts', '**/*Store.ts'],
  plugins: { local: require('./scripts/lib/storesOnly') },
  rules: { 'local/stores-only': 'error' },
};

// "One owner per table" (docs/architecture.md, "Who owns which table"): the first table a query
// names must be one its file's folder owns (scripts/lib/storesOnly.js, rule table-owner). The
// Account's tables, as db/stores/accountTables.ts describes them (TABLE_SPECS: the hand-described
// ones and the platform's), are db/stores/'s; every other table is listed here with its one owner.
// A table with no owner is an error, so a new table is given one; another folder that needs a table
// calls its owner's function.
const ACCOUNT_TABLES = Object.keys(loadTs('./db/stores/accountTables.ts').TABLE_SPECS);
const TABLE_OWNERS = {
  ...Object.fromEntries(ACCOUNT_TABLES.map((t) => [t, 'db/stores'])),
  // The Account's own queues and counters, beside its tables.
  account_digest_pending: 'db/stores',
  queue_item_attempts: 'db/stores',
  rate_limit_buckets: 'db/stores',
  reference_data: 'account',
  import_processes: 'imports',
  import_suppliers: 'suppliers',
  ops_counts: 'ops',
  ops_processed_minutes: 'ops',
  organisations: 'auth',
  organisation_suppliers: 'auth',
  api_keys: 'auth',
  refresh_tokens: 'auth',
  meter_point_registrations: 'registration',
  post_import_notes: 'topUps',
  post_import_statements: 'topUps',
  post_import_transactions: 'topUps',
  customer_email_queue: 'emails',
  customer_email_rate: 'emails',
  outbox: 'events',
  outbox_pending: 'events',
  // PostgreSQL's catalogs: the database's existence (db/knex.ts), the advisory leases (events/lease.ts).
  pg_database: 'db',
  pg_locks: 'events',
};

/**
 * A TypeScript module of this tree from this CommonJS file: under jest (test/unit/scripts/
 * lintRules.test.ts), whose transform compiles it, a plain require; under ESLint, through tsx.
 */
function loadTs(file) {
  try {
    return require(file);
  } catch {
    return require('tsx/cjs/api').require(file, __filename);
  }
}

const tableOwner = {
  files: [...LIB, ...DOMAIN, ...STORAGE, ...HTTP, ...WORKFLOWS, ...FEATURES, ...ACTIVITIES, ...ENTRY].map((f) => `${f}/**/*.ts`),
  // Migrations make and change every table; mapping/'s SQL is DuckDB's, over tables of its own.
  ignores: ['db/migrations/**', 'mapping/**'],
  plugins: { local: require('./scripts/lib/storesOnly') },
  rules: { 'local/table-owner': ['error', { owners: TABLE_OWNERS }] },
};

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.venv/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['**/*.ts'],
    // Some files carry disable comments for rules this config does not turn on.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  ...layerConfigs,
  ...workflowConfigs,
  storesOnly,
  tableOwner,
  // `no-restricted-imports` sees only `import`/`export … from`: below the entry points, the
  // project's own code is imported statically, so a relative `import()` or `require()` cannot slip
  // past the layer rules (a package may still be loaded lazily, as lib/tracing.ts does).
  {
    files: [...LIB, ...DOMAIN, ...STORAGE, ...HTTP, ...WORKFLOWS, ...FEATURES, ...ACTIVITIES].map((f) => `${f}/**/*.ts`),
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportExpression[source.value=/^\\./]", message: 'Import the project\'s own code statically (a relative import() is not held by the layer rules; docs/architecture.md).' },
        { selector: "CallExpression[callee.name='require'][arguments.0.value=/^\\./]", message: 'Import the project\'s own code statically (a relative require() is not held by the layer rules; docs/architecture.md).' },
        { selector: "TSImportType[argument.literal.value=/^\\./]", message: 'Use a type import (import type … from) for the project\'s own types, which the layer rules hold.' },
      ],
    },
  },
);
