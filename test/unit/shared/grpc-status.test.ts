import { status } from '@grpc/grpc-js';
import { GrpcStatus, grpcStatusName } from '../../../shared/gcp/grpc-status';

describe('GrpcStatus', () => {
  it('has the codes @grpc/grpc-js has', () => {
    const numeric = Object.fromEntries(
      Object.entries(status).filter(([, value]) => typeof value === 'number'),
    );
    expect(GrpcStatus).toEqual(numeric);
  });
});

describe('grpcStatusName', () => {
  it('names a code as grpc-js does, and nothing for an unknown one', () => {
    expect(grpcStatusName(5)).toBe(status[5]);
    expect(grpcStatusName(16)).toBe('UNAUTHENTICATED');
    expect(grpcStatusName(-1)).toBeUndefined();
  });
});
