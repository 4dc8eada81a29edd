import fs from 'node:fs';
import path from 'node:path';
import type { ServingCertificate } from '../common/certificates';

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
