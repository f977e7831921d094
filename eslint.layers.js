// Layer rule (STYLE.md #15, docs/architecture.md): lib/ holds what every layer may use and
// imports nothing above it: no feature folder, no api/, workflows/, db/ or events/. A flat-config
// fragment: eslint.config.js spreads it into its list (`...require('./eslint.layers.js')`).
const tseslint = require('typescript-eslint');

const ABOVE_LIB = ['account', 'activities', 'api', 'auth', 'cli', 'db', 'emails', 'events', 'imports', 'maintenance', 'ops', 'platform', 'registration', 'suppliers', 'worker', 'workflows'];

module.exports = [
  {
    files: ['lib/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ABOVE_LIB.flatMap((dir) => [`../${dir}`, `../${dir}/*`, `../../${dir}`, `../../${dir}/*`]),
              message: 'lib/ is the bottom layer: it imports nothing from api/, workflows/, db/, events/ or a feature folder (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
];
