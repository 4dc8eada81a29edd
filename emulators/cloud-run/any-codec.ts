import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { commonProtoDir, packageProtoDir } from '../common/protos';

/** The type URL of an Execution packed in a google.protobuf.Any (and the `@type` of its JSON form). */
export const EXECUTION_TYPE_URL = 'type.googleapis.com/google.cloud.run.v2.Execution';

/** google.cloud.run.v2.Execution from @google-cloud/run's protos, with .proto field names. */
export function loadExecutionType(): protobuf.Type {
  const roots = [packageProtoDir('@google-cloud/run'), commonProtoDir()];
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    roots.map((dir) => path.join(dir, target)).find((file) => fs.existsSync(file)) ?? target;
  root.loadSync('google/cloud/run/v2/execution.proto', { keepCase: true });
  return root.lookupType('google.cloud.run.v2.Execution');
}

/**
 * Packs a google.cloud.run.v2.Execution into a google.protobuf.Any, as Cloud Run puts it in the
 * RunJob operation's metadata and response; the real client unpacks it from there.
 */
export function createExecutionPacker(type: protobuf.Type = loadExecutionType()): (
  execution: Record<string, unknown>,
) => {
  type_url: string;
  value: Buffer;
} {
  return (execution) => ({
    type_url: EXECUTION_TYPE_URL,
    value: Buffer.from(type.encode(type.fromObject(execution)).finish()),
  });
}
