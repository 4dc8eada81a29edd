// Imported with `await import()` by the adapter, so the Cloud Tasks client loads only when an event
// launches (most events need none: up to date, in flight).
//
// @google-cloud/tasks 6 is an ES module package that also ships a CommonJS build under its
// `require` export condition; TypeScript, compiling this CommonJS project, would otherwise refuse
// the import as ESM-only, so the CommonJS build is required by name and typed through the same
// condition (`resolution-mode: require`).
//
// A plain `require` call, not `createRequire(__filename)(...)`: esbuild bundles the first and cannot
// see the second, which left the shipped adapter requiring @google-cloud/tasks (and its own
// google-gax and grpc-js) from a node_modules its archive does not have.
import type * as CloudTasks from '@google-cloud/tasks' with { 'resolution-mode': 'require' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tasks = require('@google-cloud/tasks') as typeof CloudTasks;

export const CloudTasksClient = tasks.CloudTasksClient;
export type CloudTasksClient = CloudTasks.CloudTasksClient;
export { googleClientOptions } from '../client-options';
