// Imported with `await import()` by the entry points, so that this library loads only when a run
// needs it. Why a module of our own instead of `await import(LIBRARY)`: the library is CommonJS, and
// in the ES module bundles (scripts/bundle.cjs) a dynamic import of a CommonJS package yields only
// its `default` export; a static re-export here keeps the named exports, bundled or not.
//
// PubSub comes from its own module, not the package's index, which also loads `protos`, the
// generated static protobuf classes of the whole API (3 MB of JavaScript) that the client never
// uses and only TypeScript's types need.
export { PubSub } from '@google-cloud/pubsub/build/src/pubsub';
