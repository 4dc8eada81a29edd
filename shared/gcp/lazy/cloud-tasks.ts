// Imported with `await import()` by the adapter, so the Cloud Tasks client loads only when an event
// launches (most events need none: up to date, in flight).
//
// @google-cloud/tasks 6 is an ES module package that also ships a CommonJS build under its
// `require` export condition; TypeScript, compiling this CommonJS project, would otherwise refuse
// the import as ESM-only, so the CommonJS build is required by name and typed through the same
// condition (`resolution-mode: require`).
import { createRequire } from 'node:module';
import type * as CloudTasks from '@google-cloud/tasks' with { 'resolution-mode': 'require' };

const tasks = createRequire(__filename)('@google-cloud/tasks') as typeof CloudTasks;

export const CloudTasksClient = tasks.CloudTasksClient;
export type CloudTasksClient = CloudTasks.CloudTasksClient;
export { googleClientOptions } from '../client-options';
