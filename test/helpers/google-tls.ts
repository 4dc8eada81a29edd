import https from 'node:https';
import * as grpc from '@grpc/grpc-js';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type ServingCertificate,
} from '../../emulators/common/certificates';
import type { GoogleClientOptions } from '../../shared/gcp/client-options';

/** A serving certificate for 127.0.0.1 and localhost from a fresh local CA in `dir`. */
export function localServingCertificate(dir: string): ServingCertificate {
  const ca = createCertificateAuthority(dir, 'emulators test CA');
  return issueServingCertificate(ca, dir, ['127.0.0.1', 'localhost']);
}

/**
 * Options for a Google client library talking to a TLS emulator at `endpoint` (host:port) as it
 * talks to Google: TLS trusting `caPem`, and, when `bearer` gives a token, call credentials that
 * send it as `authorization: Bearer` on every call (what GoogleAuth's credentials do; grpc-js
 * accepts call credentials only on a secure channel).
 */
export function tlsClientOptions(
  endpoint: string,
  caPem: string,
  bearer?: () => string | undefined,
): GoogleClientOptions & { 'grpc.ssl_target_name_override': string } {
  const separator = endpoint.lastIndexOf(':');
  const channel = grpc.credentials.createSsl(Buffer.from(caPem));
  const perCall = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    const token = bearer?.();
    if (token !== undefined) metadata.add('authorization', `Bearer ${token}`);
    callback(null, metadata);
  });
  process.env.METADATA_SERVER_DETECTION = 'none';
  return {
    apiEndpoint: endpoint.slice(0, separator),
    port: Number(endpoint.slice(separator + 1)),
    sslCreds: bearer ? grpc.credentials.combineChannelCredentials(channel, perCall) : channel,
    projectId: 'demo-project',
    // The certificate's DNS name: TLS names no IP address as its server (RFC 6066, 3), which
    // grpc-js would otherwise do for 127.0.0.1 (Node warns, DEP0123).
    'grpc.ssl_target_name_override': 'localhost',
  };
}

/** An HTTPS request trusting `caPem` (fetch takes no CA): its status and JSON body. */
export function httpsJson(
  method: string,
  url: string,
  caPem: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method,
        ca: caPem,
        headers: {
          // Node sends a DELETE's body unframed unless its length is given.
          ...(payload !== undefined
            ? {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(payload)),
              }
            : {}),
          ...options.headers,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
