import fs from 'node:fs';
import https from 'node:https';
import YAML from 'yaml';

/** Reads the Kubernetes emulator the way kubectl does (kubeconfig CA and token), for checks and summaries. */
export class KubeReader {
  private readonly server: string;
  private readonly ca: Buffer;
  /** The kubeconfig's bearer token (tests change its RBAC rules through the admin API). */
  readonly token: string;

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

  /** A request to the emulator's admin API (`/_emulator/...`, no token), trusting its CA. */
  admin(
    method: string,
    adminPath: string,
    body?: unknown,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        `${this.server}/_emulator${adminPath}`,
        { method, ca: this.ca },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  /** Creates a namespace through the admin API (no token needed); existing is fine. */
  async ensureNamespace(name: string): Promise<void> {
    const { status } = await this.admin('POST', '/namespaces', { name });
    if (status !== 200 && status !== 201)
      throw new Error(`creating namespace ${name}: HTTP ${status}`);
  }
}
