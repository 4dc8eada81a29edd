import * as grpc from '@grpc/grpc-js';

/** Constructor options for a Google gRPC client, pointing at an emulator when one is configured. */
export type GoogleClientOptions = {
  apiEndpoint?: string;
  port?: number;
  sslCreds?: grpc.ChannelCredentials;
  projectId?: string;
};

/** Where a Google client calls, when not Google's default endpoint. */
export interface GoogleEndpoint {
  /**
   * "host:port" of an emulator called in cleartext without credentials (the PUBSUB_EMULATOR_HOST
   * convention): a standalone emulator in tests and tools.
   */
  readonly emulatorHost?: string;
  /**
   * "host[:port]" of the API served over TLS and called exactly as Google's default endpoint is
   * (TLS, Application Default Credentials attached to every call): a regional or private endpoint
   * in production, the local stack's emulators (which check IAM) locally. Wins over emulatorHost.
   */
  readonly apiEndpoint?: string;
}

/** "host:port" split, 443 when no port is given. */
function hostAndPort(address: string): { apiEndpoint: string; port: number } {
  const separator = address.lastIndexOf(':');
  const host = separator > 0 ? address.slice(0, separator) : address;
  const port = separator > 0 ? Number(address.slice(separator + 1)) : 443;
  return { apiEndpoint: host, port };
}

/**
 * Options for a Google client: Application Default Credentials over TLS to Google's endpoint or
 * `apiEndpoint` (google-gax composes the token with the TLS channel itself, so this path is the
 * production one), or an insecure channel without credentials to `emulatorHost`. A string is an
 * emulator host.
 */
export function googleClientOptions(
  endpoint: string | GoogleEndpoint | undefined,
  projectId?: string,
): GoogleClientOptions {
  const base = projectId ? { projectId } : {};
  const where = typeof endpoint === 'string' ? { emulatorHost: endpoint } : (endpoint ?? {});
  if (where.apiEndpoint) return { ...base, ...hostAndPort(where.apiEndpoint) };
  if (!where.emulatorHost) return base;
  return {
    ...base,
    ...hostAndPort(where.emulatorHost),
    sslCreds: grpc.credentials.createInsecure(),
  };
}
