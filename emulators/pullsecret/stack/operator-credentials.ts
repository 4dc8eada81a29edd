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

/** An access token of the operator, as a workstation's gcloud would hand one out. */
async function operatorToken(metadataHost: string): Promise<string> {
  const answer = await fetch(
    `http://${metadataHost}/computeMetadata/v1/instance/service-accounts/default/token?scopes=https://www.googleapis.com/auth/cloud-platform`,
    { headers: { 'Metadata-Flavor': 'Google' } },
  );
  if (answer.status !== 200) throw new Error(`operator token: HTTP ${answer.status}`);
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
 * Client options for the stack's own tools, the console and tests, calling a Google API emulator
 * as the operator (OPERATOR_IDENTITY): TLS trusting the stack's CA, and the operator's token on
 * every call, as gcloud's credentials would be. Never a runtime identity's.
 */
export function operatorClientOptions(access: OperatorAccess): GoogleClientOptions {
  const separator = access.endpoint.lastIndexOf(':');
  const token = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    operatorToken(access.operatorMetadata).then(
      (value) => {
        const metadata = new grpc.Metadata();
        metadata.set('authorization', `Bearer ${value}`);
        callback(null, metadata);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  });
  return {
    apiEndpoint: access.endpoint.slice(0, separator),
    port: Number(access.endpoint.slice(separator + 1)),
    sslCreds: grpc.credentials.combineChannelCredentials(
      grpc.credentials.createSsl(fs.readFileSync(access.caFile)),
      token,
    ),
  };
}
