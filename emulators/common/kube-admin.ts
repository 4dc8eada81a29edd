import fs from 'node:fs';
import https from 'node:https';
import YAML from 'yaml';

/** Reads the Kubernetes emulator the way kubectl does (kubeconfig CA and token), for checks and summaries. */
export class KubeReader {
  readonly server: string;
  readonly ca: Buffer;
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

  /** GET an API path (core/v1 or /apis/...); undefined on 404. */
  async get(path: string): Promise<Record<string, unknown> | undefined> {
    const { status, body } = await this.request('GET', path);
    if (status === 404) return undefined;
    if (status !== 200) throw new Error(`GET ${path}: ${status} ${body}`);
    return JSON.parse(body) as Record<string, unknown>;
  }

  /** Creates an object as the admin (setup: policies, CRDs); an existing one is fine. */
  async create(path: string, object: Record<string, unknown>): Promise<void> {
    const { status, body } = await this.request('POST', path, object);
    if (status !== 201 && status !== 200 && status !== 409)
      throw new Error(`POST ${path}: ${status} ${body}`);
  }

  /** One API request with the kubeconfig's token; the answer's status and body text. */
  request(
    method: string,
    path: string,
    body?: unknown,
    token = this.token,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        `${this.server}${path}`,
        {
          method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
        },
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

  /** A request to the emulator's admin API (`/_emulator/...`, no token), trusting its CA. */
  admin(
    method: string,
    adminPath: string,
    body?: unknown,
  ): Promise<{ status: number; body: string }> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = https.request(
        `${this.server}/_emulator${adminPath}`,
        {
          method,
          ca: this.ca,
          // A length, not chunks: Node sends a DELETE's body only with one.
          ...(text === undefined
            ? {}
            : {
                headers: {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(text),
                },
              }),
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.end(text);
    });
  }

  /** Creates a namespace through the admin API (no token needed); existing is fine. */
  async ensureNamespace(name: string): Promise<void> {
    const { status } = await this.admin('POST', '/namespaces', { name });
    if (status !== 200 && status !== 201)
      throw new Error(`creating namespace ${name}: HTTP ${status}`);
  }
}

/** An admin reader per management cluster, from stack.json's `managementClusters`. */
export function managementClusterReaders(
  clusters: Readonly<Record<string, { readonly kubeconfig: string }>>,
): Map<string, KubeReader> {
  return new Map(Object.entries(clusters).map(([name, c]) => [name, new KubeReader(c.kubeconfig)]));
}
