// GKE's IAM layer of the Kubernetes emulator (emulators/kube-apiserver/gke-iam.ts): a Google
// identity needs container.clusters.get on the cluster before RBAC is asked; then RBAC decides, and
// what RBAC denies a project-level role's container.* permission allows (GKE authorizes with IAM
// as well as RBAC: https://cloud.google.com/kubernetes-engine/docs/how-to/role-based-access-control).
// The job's RBAC and fence are Terraform's templates, applied with kubectl; the fence still judges
// every write IAM lets through. The last part starts the emulator from the command line with
// --iam-file and --gke-cluster (run `npm run build` first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IamConfigInput } from '../../../emulators/common/iam/iam-config';
import { KubeReader } from '../../../emulators/common/kube-admin';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { loadCrdFixture } from '../../../emulators/pullsecret/management-cluster/hosted-cluster-crd';
import { applyManifest, renderClusterRbac } from '../../../emulators/pullsecret/stack/cluster-rbac';
import { JOB_SCOPES, metadataServerToken } from '../../helpers/metadata-token';
import { ROOT } from '../../helpers/run-process';
import { startTracked } from '../../helpers/tracked-processes';

const JOB = 'pullsecret-job@demo-platform.iam.gserviceaccount.com';
const PROJECT = 'mgmt-project-1';
const CLUSTER = `projects/${PROJECT}/locations/us-central1/clusters/mgmt-1`;
const SECRETS = '/api/v1/namespaces/clusters-a/secrets';
const HOSTED_CLUSTERS =
  '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters-a/hostedclusters';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

/** The allow policies of the cluster's project: none for the job until a test grants one. */
const iamConfig = (uniqueId: string): IamConfigInput => ({
  projects: { [PROJECT]: '400000000001' },
  serviceAccounts: { [uniqueId]: JOB },
  bindings: [],
});

/** The job's own pull secret of cluster `a` (what the fence admits). */
const pullSecret = (name = 'a-pull-secret') => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace: 'clusters-a',
    labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'a' },
  },
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
});

const message = (body: string) => (JSON.parse(body) as { message: string }).message;

describe("GKE's IAM layer beside RBAC (Kubernetes emulator)", () => {
  let metadata: MetadataServerEmulator;
  let kube: KubeApiServerEmulator;
  let admin: KubeReader;
  let dir: string;
  let token: string;

  const grant = async (role: string, resource = `projects/${PROJECT}`) => {
    const answer = await admin.admin('POST', '/iam/bindings', {
      resource,
      role,
      members: [`serviceAccount:${JOB}`],
    });
    expect(answer.status).toBe(200);
  };
  const revoke = async (role: string, resource = `projects/${PROJECT}`) => {
    const answer = await admin.admin('DELETE', '/iam/bindings', {
      resource,
      role,
      member: `serviceAccount:${JOB}`,
    });
    expect(answer.status).toBe(200);
  };
  const asJob = (method: string, target: string, body?: unknown) =>
    admin.request(method, target, body, token);

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: JOB });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gke-iam-'));
    kube = await startKubeApiServerEmulator({
      namespaces: ['clusters-a', 'kube-system'],
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      iam: { config: iamConfig(metadata.uniqueId), cluster: CLUSTER },
      resources: [loadCrdFixture('hostedcluster')],
      stateDir: dir,
    });
    admin = new KubeReader(kube.kubeconfigPath);
    // As an operator does: the fence alone first, then the RBAC (Terraform's templates).
    await applyManifest(
      kube.kubeconfigPath,
      renderClusterRbac(ROOT, {
        cluster: 'mgmt-1',
        jobIdentity: JOB,
        namespaces: null,
        credentialsCommand: 'true',
      }),
    );
    token = await metadataServerToken(metadata.endpoint, JOB_SCOPES);
  });
  afterAll(async () => {
    await kube?.stop();
    await metadata?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a Google token without container.clusters.get is refused before RBAC: 403 with GKE’s wording, even for what RBAC grants', async () => {
    const create = await asJob('POST', SECRETS, pullSecret());
    expect(create.status).toBe(403);
    expect(JSON.parse(create.body)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `Required "container.clusters.get" permission(s) for "${CLUSTER}".`,
    });
    // Discovery and SelfSubjectAccessReview too: nothing of the cluster answers.
    expect((await asJob('GET', '/api')).status).toBe(403);
    // The administrator's static token is not a Google identity: IAM never sees it.
    expect((await admin.request('GET', SECRETS)).status).toBe(200);
    expect(await admin.get(`${SECRETS}/a-pull-secret`)).toBeUndefined();
  });

  it('with roles/container.clusterViewer on the project (what Terraform grants) RBAC decides, and a denial names the IAM permission', async () => {
    await grant('roles/container.clusterViewer');
    expect((await asJob('POST', SECRETS, pullSecret())).status).toBe(201);
    const get = await asJob('GET', `${SECRETS}/a-pull-secret`);
    expect(get.status).toBe(403);
    expect(message(get.body)).toBe(
      `secrets "a-pull-secret" is forbidden: User "${JOB}" cannot get resource "secrets" in API group "" in the namespace "clusters-a": requires one of ["container.secrets.get"] permission(s).`,
    );
    const list = await asJob('GET', SECRETS);
    expect(list.status).toBe(403);
    expect(message(list.body)).toContain(
      'requires one of ["container.secrets.list"] permission(s).',
    );
    // A custom resource is thirdPartyObjects to IAM.
    expect(message((await asJob('GET', HOSTED_CLUSTERS)).body)).toContain(
      'requires one of ["container.thirdPartyObjects.list"] permission(s).',
    );
  });

  it('a binding on the cluster itself lets in as well as one on its project', async () => {
    await revoke('roles/container.clusterViewer');
    expect((await asJob('GET', SECRETS)).status).toBe(403);
    expect(message((await asJob('GET', SECRETS)).body)).toMatch(
      /^Required "container\.clusters\.get"/,
    );
    await grant('roles/container.clusterViewer', CLUSTER);
    expect(message((await asJob('GET', SECRETS)).body)).toMatch(/^secrets is forbidden/);
    await revoke('roles/container.clusterViewer', CLUSTER);
    await grant('roles/container.clusterViewer');
  });

  it('RBAC denies Secret get and list, but a project-level roles/container.developer allows them: the hole', async () => {
    await grant('roles/container.developer');
    try {
      const list = await asJob('GET', SECRETS);
      expect(list.status).toBe(200);
      expect(
        (JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map(
          (s) => s.metadata.name,
        ),
      ).toEqual(['a-pull-secret']);
      expect((await asJob('GET', `${SECRETS}/a-pull-secret`)).status).toBe(200);
      expect((await asJob('GET', HOSTED_CLUSTERS)).status).toBe(200);
      // SelfSubjectAccessReview asks the same authorizers: the doctor's rbac check sees it.
      const review = await asJob('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: { verb: 'list', resource: 'secrets', namespace: 'kube-system' },
        },
      });
      expect(JSON.parse(review.body)).toMatchObject({
        status: { allowed: true, reason: expect.stringContaining('container.secrets.list') },
      });
    } finally {
      await revoke('roles/container.developer');
    }
    expect((await asJob('GET', SECRETS)).status).toBe(403);
  });

  it('roles/container.viewer reads HostedClusters but never Secrets', async () => {
    await grant('roles/container.viewer');
    try {
      expect((await asJob('GET', HOSTED_CLUSTERS)).status).toBe(200);
      expect((await asJob('GET', SECRETS)).status).toBe(403);
    } finally {
      await revoke('roles/container.viewer');
    }
  });

  it('the fence still refuses a write IAM allowed: an update (PUT) RBAC does not grant, of a Secret the job does not own', async () => {
    await admin.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'someone-elses', namespace: 'clusters-a' },
      type: 'Opaque',
      data: { token: Buffer.from('x').toString('base64') },
    });
    const foreign = {
      ...pullSecret('someone-elses'),
      type: 'Opaque',
      data: { token: Buffer.from('y').toString('base64') },
    };
    // RBAC alone: update is not the job's (it patches), so RBAC refuses.
    expect(message((await asJob('PUT', `${SECRETS}/someone-elses`, foreign)).body)).toContain(
      'requires one of ["container.secrets.update"] permission(s).',
    );
    await grant('roles/editor');
    try {
      const update = await asJob('PUT', `${SECRETS}/someone-elses`, foreign);
      expect(update.status).toBe(403);
      expect(message(update.body)).toContain('hyperfleet-pullsecret-fence');
      expect(message(update.body)).toContain('may not change or delete a Secret it does not own');
      // The job's own pull secret: IAM allows the update and the fence admits it.
      const own = JSON.parse((await asJob('GET', `${SECRETS}/a-pull-secret`)).body) as Record<
        string,
        unknown
      >;
      expect((await asJob('PUT', `${SECRETS}/a-pull-secret`, own)).status).toBe(200);
    } finally {
      await revoke('roles/editor');
    }
  });

  it('IAM knows a token without userinfo.email by its unique id, and an impersonated user by its email', async () => {
    const idOnly = await metadataServerToken(metadata.endpoint, [CLOUD_PLATFORM]);
    // Let in through the service account IAM knows by unique id; RBAC knows the id, not the email.
    const list = await admin.request('GET', SECRETS, undefined, idOnly);
    expect(message(list.body)).toMatch(
      /^secrets is forbidden: User "\d{21}" cannot list .*requires one of \["container\.secrets\.list"\]/,
    );
    await grant('roles/container.developer');
    try {
      expect((await admin.request('GET', SECRETS, undefined, idOnly)).status).toBe(200);
      // kubectl auth can-i list secrets --as=JOB, as an administrator asks it.
      const review = await new Promise<string>((resolve, reject) => {
        void import('node:https').then((https) => {
          const request = https.request(
            `${admin.server}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`,
            {
              method: 'POST',
              ca: admin.ca,
              headers: {
                authorization: `Bearer ${admin.token}`,
                'content-type': 'application/json',
                'impersonate-user': JOB,
              },
            },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString()));
              response.on('end', () => resolve(text));
            },
          );
          request.on('error', reject);
          request.end(
            JSON.stringify({
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: {
                resourceAttributes: { verb: 'list', resource: 'secrets', namespace: 'clusters-a' },
              },
            }),
          );
        });
      });
      expect(JSON.parse(review)).toMatchObject({ status: { allowed: true } });
    } finally {
      await revoke('roles/container.developer');
    }
  });
});

describe('npm run emulators -- kube-apiserver --iam-file FILE --gke-cluster NAME', () => {
  it('starts with the IAM layer: a Google token without container.clusters.get is refused', async () => {
    const metadata = await startMetadataServer({ serviceAccount: JOB });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gke-iam-cli-'));
    try {
      const iamFile = path.join(dir, 'iam.json');
      fs.writeFileSync(iamFile, JSON.stringify(iamConfig(metadata.uniqueId)));
      const emulator = await startTracked({
        command: process.execPath,
        args: [
          path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
          'kube-apiserver',
          '--port',
          '0',
          '--data-dir',
          path.join(dir, 'kube'),
          '--google-token-info',
          metadata.tokenInfoUrl,
          '--iam-file',
          iamFile,
          '--gke-cluster',
          CLUSTER,
        ],
      });
      const reader = new KubeReader(emulator.info.kubeconfig as string);
      const token = await metadataServerToken(metadata.endpoint, JOB_SCOPES);
      const answer = await reader.request('GET', '/api/v1/namespaces', undefined, token);
      expect(answer.status).toBe(403);
      expect(message(answer.body)).toBe(
        `Required "container.clusters.get" permission(s) for "${CLUSTER}".`,
      );
      // Its allow policies are the admin API's, as the Secret Manager emulator's are.
      const snapshot = JSON.parse((await reader.admin('GET', '/iam')).body) as IamConfigInput;
      expect(snapshot.projects).toEqual({ [PROJECT]: '400000000001' });
      await emulator.stop();
    } finally {
      await metadata.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
