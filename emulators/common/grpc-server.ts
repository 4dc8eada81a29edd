import * as grpc from '@grpc/grpc-js';
import type { ServingCertificate } from './certificates';
import { GrpcError, parseGrpcCode } from './grpc-error';
import { sleep, type FaultInjector } from './fault-injector';
import type { RequestLog } from './request-log';

/** A unary handler that returns the response or throws a GrpcError; `metadata` is the call's (its credentials). */
export type UnaryHandler = (
  request: Record<string, unknown>,
  metadata: grpc.Metadata,
) => unknown | Promise<unknown>;

/**
 * Adapts plain async handlers to grpc-js: applies injected faults (before the handler, or after it
 * for `after` faults, whose request is performed and then answered with the error), records each call in the
 * request log (method, resource name, outcome; never payloads) and turns GrpcError into statuses.
 */
export function unaryHandlers(
  handlers: Record<string, UnaryHandler>,
  context: {
    faults: FaultInjector;
    requests: RequestLog;
    target?: (request: Record<string, unknown>) => string;
  },
): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(handlers)) {
    implementation[method] = (async (
      call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const request = call.request;
      const target = context.target?.(request) ?? targetOf(request);
      const record = (outcome: string | number) =>
        context.requests.add({ method, target, outcome });
      try {
        const fault = context.faults.take(method, target);
        if (fault?.delayMs) await sleep(fault.delayMs);
        if (fault?.held) await fault.held;
        const injected = () => {
          const code = parseGrpcCode(fault!.status!);
          return new GrpcError(code, fault!.message ?? `injected fault: ${grpc.status[code]}`);
        };
        if (fault?.status !== undefined && !fault.after) throw injected();
        const response = await handler(request, call.metadata);
        // "Perform, then fail": the effect happened, the caller sees only the error.
        if (fault?.status !== undefined) throw injected();
        record('OK');
        callback(null, response);
      } catch (error) {
        const grpcError =
          error instanceof GrpcError
            ? error
            : new GrpcError(
                grpc.status.INTERNAL,
                error instanceof Error ? error.message : String(error),
              );
        record(grpc.status[grpcError.code]);
        callback(grpcError.toServiceError() as grpc.ServiceError);
      }
    }) as grpc.UntypedHandleCall;
  }
  return implementation;
}

/** The resource a request names (`name`, `parent`, `resource`, or `secret.name`); '' when none. */
export function targetOf(request: Record<string, unknown>): string {
  for (const key of ['name', 'parent', 'resource']) {
    if (typeof request[key] === 'string') return request[key];
  }
  const secret = request.secret as { name?: unknown } | undefined;
  return typeof secret?.name === 'string' ? secret.name : '';
}

/**
 * Binds a grpc-js server on host:port (0 = free port) and resolves with the bound port: plaintext,
 * or TLS with `certificate` (servingCredentials).
 */
export function bindServer(
  server: grpc.Server,
  host: string,
  port: number,
  certificate?: ServingCertificate,
): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, servingCredentials(certificate), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

/**
 * The credentials a gRPC port serves with: TLS with a serving certificate (no client
 * certificate asked for), else plaintext. TLS is what lets a Google client library send call
 * credentials (a bearer token per call) as it does to Google: grpc-js composes call credentials
 * only with secure channel credentials (`credentials.createInsecure().compose(...)` throws
 * "Cannot compose insecure credentials", @grpc/grpc-js src/channel-credentials.ts).
 */
export function servingCredentials(certificate?: ServingCertificate): grpc.ServerCredentials {
  if (!certificate) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(
    null,
    [
      {
        private_key: Buffer.from(certificate.keyPem),
        cert_chain: Buffer.from(certificate.certPem),
      },
    ],
    false,
  );
}

/** Stops a grpc-js server, waiting at most `graceMs` for calls in flight. */
export function shutdownServer(server: grpc.Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The endpoint a client should name: `host:port`, or over TLS `localhost:port` when bound to the
 * loopback address, the name the local serving certificates carry (a client sends the host for
 * SNI, and an IP address there is refused by RFC 6066).
 */
export function tlsEndpoint(host: string, port: number, tls: boolean): string {
  return tls && host === '127.0.0.1' ? `localhost:${port}` : `${host}:${port}`;
}
