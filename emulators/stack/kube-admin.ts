import fs from 'node:fs';
import https from 'node:https';
import YAML from 'yaml';

/** Reads the Kubernetes emulator the way kubectl does (kubeconfig CA and token), for checks and summaries. */
export class KubeReader {
  private readonly server: string;
  private readonly ca: Buffer;
  private readonly token: string;

  constructor(kubeconfig: string) {
    const config = YAML.parse(fs.readFileSync(kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { user: { token: string } }[];
    };
    this.server = config.clusters[0]!.cluster.server;
    this.ca = Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64');
    this.token = config.users[0]!.user.token;
  }

  /** GET a core/v1 path; undefined on 404. */
  get(path: string): Promise<Record<string, unknown> | undefined> {
    return new Promise((resolve, reject) => {
      const request = https.get(
        `${this.server}${path}`,
        { ca: this.ca, headers: { authorization: `Bearer ${this.token}` } },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () =>
            response.statusCode === 404
              ? resolve(undefined)
              : response.statusCode === 200
                ? resolve(JSON.parse(body) as Record<string, unknown>)
                : reject(new Error(`GET ${path}: ${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
    });
  }

  /** Creates a namespace through the emulator's admin API (no token needed); existing is fine. */
  ensureNamespace(name: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const request = https.request(
        `${this.server}/_emulator/namespaces`,
        { method: 'POST', ca: this.ca },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200 || response.statusCode === 201
              ? resolve()
              : reject(new Error(`creating namespace ${name}: HTTP ${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ name }));
    });
  }
}
