// Lint of the whole tree (`npm run lint`; scripts/test.sh runs it). Three groups of rules:
// - everywhere: type-aware checks, among them no promise left floating (an unawaited failure
//   is an unhandled rejection, or a write nobody waits for);
// - workflows/: the workflow sandbox (STYLE.md #2): no Node built-ins, no I/O modules,
//   activities and stores imported as types only;
// - lib/: the bottom layer (docs/architecture.md): it imports nothing from the layers or
//   features above it.
const tseslint = require('typescript-eslint');

const nodeBuiltins = require('node:module').builtinModules.flatMap((m) => [m, `node:${m}`]);

/** Every folder above lib/ (layers and features): lib may not import from them. */
const ABOVE_LIB = ['api', 'workflows', 'activities', 'db', 'account', 'imports', 'suppliers', 'registration', 'auth', 'events', 'platform', 'emails', 'maintenance', 'worker', 'cli', 'ops', 'scripts'];

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
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins.' })),
          patterns: [
            { group: ['pg', 'knex', '@nats-io/*', 'koa', '@koa/*', 'undici', 'pino'], message: 'Workflow code does no I/O: call an activity.' },
            {
              group: ['../activities', '../activities/*', '../imports/*', '../emails/*', '../maintenance/*', '../registration/*', '../db/*', '../events/*', '../api/*'],
              allowTypeImports: true,
              message: 'Import activities and stores as types only (import type).',
            },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ABOVE_LIB.flatMap((dir) => [`../${dir}`, `../${dir}/*`, `../../${dir}`, `../../${dir}/*`]),
              message: 'lib/ is the bottom layer: it imports nothing from the layers or features above it (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
);
