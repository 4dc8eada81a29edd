import * as protobuf from 'protobufjs';
import { credentials } from '@grpc/grpc-js';
import { v2 } from '../../../shared/gcp/lazy/cloud-run';

// The Cloud Run client binds RunJob's decoders when it is constructed, before protobufjs has set
// the Execution type up (shared/gcp/protobuf-decode-once.ts): without the fix every decoded answer
// generated and compiled the type's codecs again.
describe('long-running answers of the Cloud Run client', () => {
  it('set their message type up once, however many are decoded, and decode the same', () => {
    const client = new v2.JobsClient({
      apiEndpoint: '127.0.0.1',
      port: 9,
      sslCreds: credentials.createInsecure(),
      projectId: 'demo-project',
    });
    const { metadataDecoder, responseDecoder } = client.descriptors.longrunning.runJob!;
    const execution = {
      name: 'projects/demo-project/locations/us-central1/jobs/pull-secret/executions/pull-secret-abc12',
      job: 'pull-secret',
      taskCount: 1,
    };
    // Calls through: records which type each setup ran on.
    const recorded = jest.spyOn(protobuf.Type.prototype, 'setup');
    const root = protobuf.Root.fromJSON(
      // The client's own descriptor set, to encode an answer as the API would.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@google-cloud/run/build/protos/protos.json') as protobuf.INamespace,
    );
    const bytes = root.lookupType('google.cloud.run.v2.Execution').encode(execution).finish();
    const decoded = [1, 2, 3].map(() => metadataDecoder(bytes) as unknown as typeof execution);
    decoded.push(responseDecoder(bytes) as unknown as typeof execution);

    for (const answer of decoded) expect(answer).toMatchObject(execution);
    const executionSetups = recorded.mock.contexts.filter(
      (type) => (type as protobuf.Type).fullName === '.google.cloud.run.v2.Execution',
    );
    // One for the client's decoders (all four answers), one for the Root this test encoded with.
    expect(executionSetups).toHaveLength(2);
    recorded.mockRestore();
    void client.close();
  });
});
