// Imported with `await import()` by the entry points, so that this library loads only when a run
// needs it. Why a module of our own instead of `await import(LIBRARY)`: the library is CommonJS, and
// in the ES module bundles (scripts/bundle.cjs) a dynamic import of a CommonJS package yields only
// its `default` export; a static re-export here keeps the named exports, bundled or not.
export { SecretManagerServiceClient } from '../secret-manager-client';
export { googleClientOptions } from '../client-options';
