// The Secret Manager v1 client, from its own module rather than the package's index: the index also
// loads the v1beta2 client and `protos`, the generated static protobuf classes of every API version
// (768 KiB of JavaScript, 576 KiB minified), which the client never uses (it builds its service
// from protos.json) and which only TypeScript's types need. Importing v1 alone takes them out of
// every process that uses Secret Manager (the job on every run, the reporter).
export { SecretManagerServiceClient } from '@google-cloud/secret-manager/build/src/v1';
