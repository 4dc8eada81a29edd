// `npm run test:faults`: the fault matrix, on the local stack (see test/faults/).
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/faults'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 120000,
};
