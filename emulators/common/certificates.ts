import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** PEM files of a CA and a serving certificate it signed. */
export interface ServingCertificate {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** A certificate authority on disk: its PEM and where its certificate and key are. */
export interface CertificateAuthority {
  readonly caPem: string;
  readonly certFile: string;
  readonly keyFile: string;
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const detail = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `openssl ${args[0]} failed${detail ? `: ${detail}` : ''}. The emulators need the openssl command (Debian: apt-get install openssl).`,
    );
  }
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed CA (P-256, 30 days) in `directory` (ca.crt, ca.key); reused when already there. */
export function createCertificateAuthority(
  directory: string,
  commonName: string,
): CertificateAuthority {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const certFile = path.join(directory, 'ca.crt');
  const keyFile = path.join(directory, 'ca.key');
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile))
    openssl([
      'req',
      '-x509',
      ...EC,
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '30',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  return { caPem: fs.readFileSync(certFile, 'utf8'), certFile, keyFile };
}

/**
 * A serving certificate for `hosts` (IP or DNS subject alternative names) signed by `ca`, written
 * to `directory` as `<name>.crt` / `<name>.key`.
 */
export function issueServingCertificate(
  ca: CertificateAuthority,
  directory: string,
  hosts: readonly string[],
  name = 'server',
): ServingCertificate {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const file = (suffix: string) => path.join(directory, `${name}.${suffix}`);
  openssl(['req', ...EC, '-keyout', file('key'), '-out', file('csr'), '-subj', `/CN=${hosts[0]}`]);
  const san = hosts.map((h) => (/^\d+\.\d+\.\d+\.\d+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  fs.writeFileSync(
    file('ext'),
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`,
  );
  openssl([
    'x509',
    '-req',
    '-in',
    file('csr'),
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-out',
    file('crt'),
    '-days',
    '30',
    '-extfile',
    file('ext'),
  ]);
  return {
    caPem: ca.caPem,
    certPem: fs.readFileSync(file('crt'), 'utf8'),
    keyPem: fs.readFileSync(file('key'), 'utf8'),
  };
}
