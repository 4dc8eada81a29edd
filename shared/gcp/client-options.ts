import * as grpc from '@grpc/grpc-js';

/** Constructor options for a Google gRPC client, pointing at an emulator when one is configured. */
export type GoogleClientOptions = {
  apiEndpoint?: string;
  port?: number;
  sslCreds?: grpc.ChannelCredentials;
  projectId?: string;
};

/**
 * Options for a Google client: Application Default Credentials in GCP, or an insecure channel to
 * `emulatorHost` ("host:port", the PUBSUB_EMULATOR_HOST convention) for local runs.
 */
export function googleClientOptions(
  emulatorHost: string | undefined,
  projectId?: string,
): GoogleClientOptions {
  const base = projectId ? { projectId } : {};
  if (!emulatorHost) return base;
  const separator = emulatorHost.lastIndexOf(':');
  const host = separator > 0 ? emulatorHost.slice(0, separator) : emulatorHost;
  const port = separator > 0 ? Number(emulatorHost.slice(separator + 1)) : 443;
  return { ...base, apiEndpoint: host, port, sslCreds: grpc.credentials.createInsecure() };
}
