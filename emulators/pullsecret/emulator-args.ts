import fs from 'node:fs';
import path from 'node:path';
import type { ServingCertificate } from '../common/certificates';
import { iamConfigSchema } from '../common/iam/iam-config';
import type { GoogleIamOptions } from '../common/iam/iam-guard';

/** Command-line options every emulator understands, plus its own. */
export interface EmulatorArgs {
  readonly host: string;
  readonly port: number;
  readonly adminPort: number;
  readonly dataDir?: string;
  /** Positional arguments after the emulator name (e.g. namespaces to seed). */
  readonly rest: readonly string[];
  readonly options: Readonly<Record<string, string | undefined>>;
}

/** A bearer token kept in a file (never on a command line, where `ps` would show it). */
export function readTokenFile(file: string): string {
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token === '') throw new Error(`--token-file ${file} is empty`);
  return token;
}

/** ca.crt, server.crt and server.key of a folder (see emulators/common/certificates.ts). */
export function readServingCertificate(dir: string): ServingCertificate {
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  return { caPem: read('ca.crt'), certPem: read('server.crt'), keyPem: read('server.key') };
}

/**
 * The Google API emulators' IAM and TLS flags (Cloud Run, Cloud Tasks): `--iam-file FILE` (allow
 * policies, common/iam/iam-config.ts), `--google-token-info URL` (where bearer tokens are looked
 * up), `--enforce-iam` (calls without credentials are UNAUTHENTICATED too) and
 * `--serving-cert-dir DIR` (ca.crt, server.crt, server.key: serve TLS and HTTPS).
 */
export function googleApiOptions(
  args: EmulatorArgs,
): GoogleIamOptions & { servingCertificate?: ServingCertificate; plaintextAdmin?: boolean } {
  const iamFile = args.options['iam-file'];
  const tokenInfo = args.options['google-token-info'];
  const certDir = args.options['serving-cert-dir'];
  return {
    ...(iamFile
      ? { iam: iamConfigSchema.parse(JSON.parse(fs.readFileSync(iamFile, 'utf8'))) }
      : {}),
    ...(tokenInfo ? { googleTokenInfoUrl: tokenInfo } : {}),
    ...(args.options['enforce-iam'] !== undefined ? { enforceIam: true } : {}),
    ...(certDir ? { servingCertificate: readServingCertificate(certDir) } : {}),
    // --plaintext-admin: the admin port stays HTTP (the stack's tools and tests reach it so).
    ...(args.options['plaintext-admin'] !== undefined ? { plaintextAdmin: true } : {}),
  };
}
