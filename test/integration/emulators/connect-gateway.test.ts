// The Connect Gateway emulator answers as the gateway does: only GKE membership paths with a project
// number, Google access tokens verified (401), the gateway permission of each method checked against
// the caller's role (403 naming the permission), everything else forwarded with the caller's token
// to the cluster, which authenticates the same identity.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '../../../emulators/common/certificates';
import {
  startConnectGatewayEmulator,
  type ConnectGatewayEmulator,
} from '../../../emulators/connect-gateway/server';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { metadataServerToken } from '../../helpers/metadata-token';

const EDITOR = 'editor@demo-platform.iam.gserviceaccount.com';
const READER = 'reader@demo-platform.iam.gserviceaccount.com';

describe('Connect Gateway emulator', () => {
  let editorMetadata: MetadataServerEmulator;
  let readerMetadata: MetadataServerEmulator;
  let kube: KubeApiServerEmulator;
  let gateway: ConnectGatewayEmulator;
  let dir: string;
  let ca: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-gateway-'));
    const publicCa = createCertificateAuthority(path.join(dir, 'ca'), 'test public root');
    ca = publicCa.caPem;
    editorMetadata = await startMetadataServer({ serviceAccount: EDITOR });
    // Both identities' tokens are verified at one token-info endpoint, as Google verifies all.
    readerMetadata = await startMetadataServer({ serviceAccount: READER });
    kube = await startKubeApiServerEmulator({
      namespaces: ['ns'],
      googleTokenInfoUrl: editorMetadata.tokenInfoUrl,
      rbac: {
        'static-editor-token-0': {
          user: EDITOR,
          rules: [{ resources: ['secrets'], verbs: ['*'] }],
        },
      },
    });
    gateway = await startConnectGatewayEmulator({
      config: {
        memberships: [mgmtMembership()],
        grants: { [EDITOR]: 'roles/gkehub.gatewayEditor', [READER]: 'roles/gkehub.gatewayReader' },
        tokenInfoUrl: editorMetadata.tokenInfoUrl,
      },
      certificate: issueServingCertificate(publicCa, path.join(dir, 'cert'), [
        'localhost',
        '127.0.0.1',
      ]),
    });
  });
  /** The one membership: the Kubernetes emulator behind the gateway. */
  const mgmtMembership = () => ({
    projectNumber: '123456789012',
    location: 'global',
    name: 'mgmt',
    backend: kube.endpoint,
    backendCaPem: kube.caPem,
  });
  afterAll(async () => {
    await Promise.all([gateway, kube, editorMetadata, readerMetadata].map((e) => e?.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, urlPath: string, token?: string, body?: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = https.request(
        `${gateway.endpoint}${urlPath}`,
        {
          method,
          ca,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.end(body ? JSON.stringify(body) : undefined);
    });
  const membership = '/v1/projects/123456789012/locations/global/gkeMemberships/mgmt';

  it('serves a certificate of the public CA (not a cluster CA), as the real gateway is publicly trusted', async () => {
    const answer = await call(
      'GET',
      `${membership}/api/v1/namespaces/ns/secrets`,
      await metadataServerToken(editorMetadata.endpoint),
    );
    expect(answer.status).toBe(200);
  });

  it('forwards under the membership prefix with the caller token: the cluster sees the caller email', async () => {
    kube.requests.clear();
    const token = await metadataServerToken(editorMetadata.endpoint);
    const created = await call('POST', `${membership}/api/v1/namespaces/ns/secrets`, token, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'through-gateway' },
      type: 'Opaque',
    });
    expect(created.status).toBe(201);
    expect(kube.requests.list().map((r) => [r.method, r.target, r.identity])).toEqual([
      ['POST', '/api/v1/namespaces/ns/secrets', EDITOR],
    ]);
  });

  it('only GKE membership paths with a project number exist: a project id, /memberships/ or another membership is 404', async () => {
    const token = await metadataServerToken(editorMetadata.endpoint);
    for (const prefix of [
      '/v1/projects/demo-platform/locations/global/gkeMemberships/mgmt',
      '/v1/projects/123456789012/locations/global/memberships/mgmt',
      '/v1/projects/123456789012/locations/global/gkeMemberships/other',
      '/api/v1/namespaces',
    ]) {
      const answer = await call('GET', `${prefix}/api/v1/namespaces/ns/secrets`, token);
      expect([prefix, answer.status, JSON.parse(answer.body)]).toEqual([
        prefix,
        404,
        { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' } },
      ]);
    }
  });

  it('no token or a token Google does not know: 401 UNAUTHENTICATED, nothing forwarded', async () => {
    kube.requests.clear();
    expect((await call('GET', `${membership}/api`)).status).toBe(401);
    expect((await call('GET', `${membership}/api`, 'ya29.unknown')).status).toBe(401);
    // A token the cluster itself would accept (a kubeconfig token) is not a Google token.
    expect((await call('GET', `${membership}/api`, 'static-editor-token-0')).status).toBe(401);
    expect(kube.requests.list()).toEqual([]);
  });

  it('the gateway permission of each method: Connect Gateway Reader may GET but not POST (403 naming gkehub.gateway.post)', async () => {
    // The reader's tokens are known to its own metadata server only: point the gateway's check there.
    const reader = await startConnectGatewayEmulator({
      config: {
        memberships: [mgmtMembership()],
        grants: { [READER]: 'roles/gkehub.gatewayReader' },
        tokenInfoUrl: readerMetadata.tokenInfoUrl,
      },
      certificate: issueServingCertificate(
        createCertificateAuthority(path.join(dir, 'ca'), 'test public root'),
        path.join(dir, 'cert-2'),
        ['localhost'],
      ),
    });
    try {
      const token = await metadataServerToken(readerMetadata.endpoint);
      const send = (method: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          https
            .request(
              `${reader.endpoint}${membership}/api/v1/namespaces/ns/secrets`,
              { method, ca, headers: { authorization: `Bearer ${token}` } },
              (response) => {
                let text = '';
                response.on('data', (chunk: Buffer) => (text += chunk.toString()));
                response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
              },
            )
            .on('error', reject)
            .end();
        });
      // GET passes the gateway and is forwarded (this cluster does not know the reader: its 401).
      expect((await send('GET')).status).toBe(401);
      expect(reader.requests.list()).toEqual([
        expect.objectContaining({ method: 'GET', outcome: 401 }),
      ]);
      const post = await send('POST');
      expect(post.status).toBe(403);
      expect(JSON.parse(post.body)).toEqual({
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message:
            "Permission 'gkehub.gateway.post' denied on resource '//gkehub.googleapis.com/projects/123456789012/locations/global/memberships/mgmt' (or it may not exist).",
        },
      });
      expect(reader.requests.list()).toHaveLength(2);
    } finally {
      await reader.stop();
    }
  });
});
