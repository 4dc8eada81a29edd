import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** PEM files of the emulator's CA and its serving certificate. */
export interface ServingCertificate {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/**
 * Generates a private CA and a serving certificate for 127.0.0.1/localhost with openssl, so both
 * @kubernetes/client-node and kubectl verify TLS and send bearer tokens as they do in production.
 */
export function generateServingCertificate(
  directory: string,
  hosts: readonly string[] = ['127.0.0.1', 'localhost'],
): ServingCertificate {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(directory, name);
  const openssl = (args: string[]) => {
    try {
      execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      const detail = (error as { stderr?: Buffer }).stderr?.toString().trim();
      throw new Error(
        `openssl ${args[0]} failed${detail ? `: ${detail}` : ''}. The Kubernetes emulator needs the openssl command (Debian: apt-get install openssl).`,
      );
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.crt'),
    '-days',
    '30',
    '-subj',
    '/CN=kube-apiserver-emulator-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl([
    'req',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    '/CN=kube-apiserver',
  ]);
  const san = hosts.map((h) => (/^\d+\.\d+\.\d+\.\d+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  fs.writeFileSync(
    file('server.ext'),
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`,
  );
  openssl([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.crt'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.crt'),
    '-days',
    '30',
    '-extfile',
    file('server.ext'),
  ]);
  return {
    caPem: fs.readFileSync(file('ca.crt'), 'utf8'),
    certPem: fs.readFileSync(file('server.crt'), 'utf8'),
    keyPem: fs.readFileSync(file('server.key'), 'utf8'),
  };
}
