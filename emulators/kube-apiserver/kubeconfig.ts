import fs from 'node:fs';
import YAML from 'yaml';

/** Writes a kubeconfig for `server` trusting `caPem` and authenticating with `token`. */
export function writeKubeconfig(
  file: string,
  server: string,
  caPem: string,
  token: string,
  user = 'emulator-admin',
): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kube-emulator',
        cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'kube-emulator', context: { cluster: 'kube-emulator', user } }],
    'current-context': 'kube-emulator',
  };
  fs.writeFileSync(file, YAML.stringify(config), { mode: 0o600 });
}
