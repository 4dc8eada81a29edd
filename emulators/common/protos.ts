import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** Options shared by every emulator so requests and responses use the .proto field names. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: false,
  oneofs: true,
};

/** The `build/protos` folder shipped inside an npm package (e.g. @google-cloud/secret-manager). */
export function packageProtoDir(packageName: string): string {
  // Resolve the entry point, then walk up: some packages do not export their package.json.
  let dir = path.dirname(require.resolve(packageName));
  while (
    !fs.existsSync(path.join(dir, 'package.json')) ||
    path.basename(dir) === 'src' ||
    path.basename(dir) === 'build'
  ) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot locate the ${packageName} package folder`);
    dir = parent;
  }
  return path.join(dir, 'build', 'protos');
}

/** The common Google protos (longrunning, rpc, protobuf) that google-gax ships. */
export function commonProtoDir(): string {
  return packageProtoDir('google-gax');
}

/** A nested namespace of loaded gRPC packages; walk it with `lookupService`. */
export type GrpcNamespace = grpc.GrpcObject;

/** Loads .proto files from the packages that ship them, as the real clients do. */
export function loadProtos(files: readonly string[], packages: readonly string[]): GrpcNamespace {
  const definition = protoLoader.loadSync([...files], {
    ...PROTO_LOADER_OPTIONS,
    includeDirs: [...packages.map(packageProtoDir), commonProtoDir()],
  });
  return grpc.loadPackageDefinition(definition);
}

/** Finds a service definition by its full name, e.g. `google.cloud.run.v2.Jobs`. */
export function lookupService(root: GrpcNamespace, fullName: string): grpc.ServiceDefinition {
  let node: unknown = root;
  for (const part of fullName.split('.')) {
    node = (node as Record<string, unknown> | undefined)?.[part];
  }
  const service = (node as { service?: grpc.ServiceDefinition } | undefined)?.service;
  if (!service) throw new Error(`gRPC service ${fullName} not found in the loaded protos`);
  return service;
}
