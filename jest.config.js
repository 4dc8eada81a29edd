// Jest runs the TypeScript sources through ts-jest. @kubernetes/client-node and a few of its
// dependencies ship only ES modules, so they are transformed too (allowJs in tsconfig.jest.json).
// The OTLP exporter's transport loads node:http with a dynamic import(), which Jest's CommonJS
// sandbox refuses; transformed, it becomes a require().
const esmPackages = [
  '@opentelemetry/otlp-exporter-base',
  '@kubernetes/client-node',
  'openid-client',
  'oauth4webapi',
  'jose',
  'jsonpath-plus',
  'rfc4648',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // The fault matrix runs with `npm run test:faults` (jest.faults.config.js).
  testPathIgnorePatterns: ['/node_modules/', '/test/faults/'],

  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  setupFilesAfterEnv: ['<rootDir>/test/jest.setup.ts'],
  // Once per run: says which tests a missing terraform or kubectl skips; fails the run on CI.
  globalSetup: '<rootDir>/test/global-setup.ts',
  testTimeout: 60000,

  maxWorkers: 2,
};
