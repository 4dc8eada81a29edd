// Imported with `await import()` by the entry points, so that this library loads only when a run
// needs it. Why a module of our own instead of `await import(LIBRARY)`: the library is CommonJS, and
// in the ES module bundles (scripts/bundle.cjs) a dynamic import of a CommonJS package yields only
// its `default` export; a static re-export here keeps the named exports, bundled or not.
//
// The clients come from their own modules, not the package's index, which also loads the other
// six Cloud Run clients and `protos`, the generated static protobuf classes of the whole API
// (3.9 MB of JavaScript, about 1 MB minified) that the clients never use (they build their
// services from protos.json) and only TypeScript's types need.
import { ExecutionsClient } from '@google-cloud/run/build/src/v2/executions_client';
import { JobsClient } from '@google-cloud/run/build/src/v2/jobs_client';
import { TasksClient } from '@google-cloud/run/build/src/v2/tasks_client';
import { decodeWithSetUpTypes } from '../protobuf-decode-once';

// Before any client is constructed: their long-running decoders are bound at construction.
decodeWithSetUpTypes();

export const v2 = { ExecutionsClient, JobsClient, TasksClient };
export { googleClientOptions } from '../client-options';
