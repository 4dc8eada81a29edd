import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import * as z from 'zod';
import type { GoogleClientOptions } from '../../../shared/gcp/client-options';

/** What an operator's client needs of the stack: the API's address, the CA, the operator's metadata server. */
export interface OperatorAccess {
  /** host:port of a TLS Google API emulator. */
  readonly endpoint: string;
  /** The CA that issued the emulator's certificate (the stack's public CA). */
  readonly caFile: string;
  /** host:port of the metadata server listener of OPERATOR_IDENTITY. */
  readonly operatorMetadata: string;
}

const tokenSchema = z.object({ access_token: z.string().min(1) });

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * An access token of the account a metadata server listener serves (`http://HOST:PORT`), fetched
 * as google-auth-library fetches it on Cloud Run (`Metadata-Flavor: Google`, `?scopes=`).
 */
export async function metadataServerToken(
  metadataEndpoint: string,
  scopes: readonly string[] = [CLOUD_PLATFORM],
): Promise<string> {
  const url = new URL(
    '/computeMetadata/v1/instance/service-accounts/default/token',
    metadataEndpoint,
  );
  url.searchParams.set('scopes', scopes.join(','));
  const answer = await fetch(url, { headers: { 'Metadata-Flavor': 'Google' } });
  if (answer.status !== 200) throw new Error(`metadata token: HTTP ${answer.status}`);
  return tokenSchema.parse(await answer.json()).access_token;
}

/** The operator's access to one of the stack's Google API emulators, from its description. */
export const operatorAccess = (
  d: {
    readonly endpoints: { readonly publicCaFile: string; readonly operatorMetadata: string };
  },
  endpoint: string,
): OperatorAccess => ({
  endpoint: endpoint.replace(/^https?:\/\//, ''),
  caFile: d.endpoints.publicCaFile,
  operatorMetadata: d.endpoints.operatorMetadata,
});

/**
 * Client options for a TLS Google API emulator at `endpoint` (host:port) as a client library
 * talks to Google: TLS trusting `caFile`, and `token`'s bearer on every call when given (grpc-js
 * sends call credentials only on a secure channel).
 */
export function tokenClientOptions(
  endpoint: string,
  caFile: string,
  token?: () => Promise<string>,
): GoogleClientOptions {
  const separator = endpoint.lastIndexOf(':');
  const tls = grpc.credentials.createSsl(fs.readFileSync(caFile));
  const perCall =
    token &&
    grpc.credentials.createFromMetadataGenerator((_params, callback) => {
      token().then(
        (value) => {
          const metadata = new grpc.Metadata();
          metadata.set('authorization', `Bearer ${value}`);
          callback(null, metadata);
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    });
  return {
    apiEndpoint: endpoint.slice(0, separator),
    port: Number(endpoint.slice(separator + 1)),
    sslCreds: perCall ? grpc.credentials.combineChannelCredentials(tls, perCall) : tls,
  };
}

/**
 * Client options for the stack's own tools, the console and tests, calling a Google API emulator
 * as the operator (OPERATOR_IDENTITY): TLS trusting the stack's CA, and the operator's token on
 * every call, as gcloud's credentials would be. Never a runtime identity's.
 */
export function operatorClientOptions(access: OperatorAccess): GoogleClientOptions {
  return tokenClientOptions(access.endpoint, access.caFile, () =>
    metadataServerToken(`http://${access.operatorMetadata}`),
  );
}
