// Imported with `await import()` by the adapter, so the Cloud Tasks client loads only when an event
// launches (most events need none: up to date, in flight).
//
// @google-cloud/tasks 6 is an ES module package that also ships a CommonJS build under its
// `require` export condition. TypeScript, compiling this CommonJS project, would refuse a static
// import as ESM-only, so the package is required by name (typed through the same condition,
// `resolution-mode: require`). A plain `require` of a literal, not createRequire: the bundler sees
// it and bundles the client with the same gRPC runtime as the rest of the function (a second copy
// refuses the other's channel credentials).
import type * as CloudTasks from '@google-cloud/tasks' with { 'resolution-mode': 'require' };

// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const tasks = require('@google-cloud/tasks') as typeof CloudTasks;

export const CloudTasksClient = tasks.CloudTasksClient;
export type CloudTasksClient = CloudTasks.CloudTasksClient;
export { googleClientOptions } from '../client-options';
