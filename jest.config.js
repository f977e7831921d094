/** @type {import('jest').Config} */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];
module.exports = {
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
  // Integration tests wait on real servers; unit tests finish in milliseconds anyway.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
      testTimeout: 60000,
    },
  ],
};
