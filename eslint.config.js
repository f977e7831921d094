// Lint: workflow code must stay deterministic (STYLE.md #2): no Node built-ins, no I/O modules,
// activities imported as types only. `npm run lint` checks it; scripts/test.sh runs it.
const tseslint = require('typescript-eslint');

const nodeBuiltins = require('node:module').builtinModules.flatMap((m) => [m, `node:${m}`]);

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.venv/**'] },
  {
    files: ['workflows/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins.' })),
          patterns: [
            { group: ['pg', 'knex', '@nats-io/*', 'koa', '@koa/*', 'undici', 'pino'], message: 'Workflow code does no I/O: call an activity.' },
            { group: ['../activities', '../activities/*', '../db/*', '../events/*', '../api/*'], allowTypeImports: true, message: 'Import activities and stores as types only (import type).' },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
);
