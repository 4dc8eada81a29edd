// Issue 40, part 4: the job's API-call entries (shared/logging/api-call-log.ts) are what the
// log-based metrics PREFIX_{gcp,k8s}_api_calls and _duration read. Here: the entry's fields, the
// gRPC-to-HTTP status mapping the seed's 5xx alert depends on, and that the call's result or error
// passes through unchanged.
import { grpcHttpStatus, GRPC_CALL_STATUSES } from '../../../shared/gcp/grpc-http-status';
import { GrpcStatus } from '../../../shared/gcp/grpc-status';
import { loggedApiCall, type ApiCall } from '../../../shared/logging/api-call-log';
import { RecordingLogger } from '../../helpers/recording-logger';

const grpcError = (code: number) => Object.assign(new Error(`${code} X: detail`), { code });

/** google.rpc.Code's HTTP Mapping, code by code. */
const MAPPING = [
  ['OK', 200],
  ['CANCELLED', 499],
  ['UNKNOWN', 500],
  ['INVALID_ARGUMENT', 400],
  ['DEADLINE_EXCEEDED', 504],
  ['NOT_FOUND', 404],
  ['ALREADY_EXISTS', 409],
  ['PERMISSION_DENIED', 403],
  ['UNAUTHENTICATED', 401],
  ['RESOURCE_EXHAUSTED', 429],
  ['FAILED_PRECONDITION', 400],
  ['ABORTED', 409],
  ['OUT_OF_RANGE', 400],
  ['UNIMPLEMENTED', 501],
  ['INTERNAL', 500],
  ['UNAVAILABLE', 503],
  ['DATA_LOSS', 500],
] as const;

describe('the gRPC code as an HTTP status (google.rpc.Code "HTTP Mapping")', () => {
  it.each(MAPPING)('%s is %i', (name, http) => {
    expect(grpcHttpStatus(GrpcStatus[name])).toBe(http);
  });

  it('covers every code of the protocol, and takes an unknown one for UNKNOWN (500)', () => {
    expect(MAPPING.map(([name]) => name).sort()).toEqual(Object.keys(GrpcStatus).sort());
    expect(grpcHttpStatus(99)).toBe(500);
  });

  it('states a Google client failure with the HTTP status and the code name; no code, no response', () => {
    expect(GRPC_CALL_STATUSES.failed(grpcError(GrpcStatus.UNAVAILABLE))).toEqual({
      status_code: '503',
      grpc_code: 'UNAVAILABLE',
    });
    expect(GRPC_CALL_STATUSES.failed(new Error('socket hang up'))).toEqual({
      status_code: 'no_response',
    });
    expect(GRPC_CALL_STATUSES.answered).toEqual({ status_code: '200', grpc_code: 'OK' });
  });
});

describe('loggedApiCall', () => {
  const call: ApiCall = {
    api: 'secretmanager.googleapis.com',
    service: 'Secret Manager',
    operation: 'GetSecret',
    attempt: 2,
    target: { resource: 'projects/p/secrets/s' },
  };
  let now = 1000;
  const clock = () => (now += 37);

  it('logs one INFO entry for an answer, with its status and duration, and returns the result', async () => {
    const logger = new RecordingLogger();
    await expect(
      loggedApiCall(logger, call, GRPC_CALL_STATUSES, async () => 'answer', clock),
    ).resolves.toBe('answer');
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'Secret Manager GetSecret: 200',
        fields: {
          resource: 'projects/p/secrets/s',
          api: 'secretmanager.googleapis.com',
          operation: 'GetSecret',
          call_attempt: 2,
          status_code: '200',
          grpc_code: 'OK',
          duration_ms: 37,
        },
      },
    ]);
  });

  it('logs a failure with its status and rethrows the same error', async () => {
    const logger = new RecordingLogger();
    const error = grpcError(GrpcStatus.NOT_FOUND);
    await expect(
      loggedApiCall(logger, call, GRPC_CALL_STATUSES, () => Promise.reject(error), clock),
    ).rejects.toBe(error);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]!.fields).toMatchObject({
      status_code: '404',
      grpc_code: 'NOT_FOUND',
      duration_ms: 37,
    });
  });

  it("keeps the call's own operation over one a child logger carries", async () => {
    const logger = new RecordingLogger();
    await loggedApiCall(
      logger.child({ operation: 'publish-version' }),
      call,
      GRPC_CALL_STATUSES,
      async () => 1,
    );
    expect(logger.lines[0]!.fields.operation).toBe('GetSecret');
  });
});
