// The Secret Manager emulator's IAM, each rule against the documentation it follows:
// - TestIamPermissions: "Returns permissions that a caller has for the specified secret. If the
//   secret does not exist, this call returns an empty set of permissions, not a NOT_FOUND error."
//   https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/testIamPermissions
// - Resource Manager projects.testIamPermissions: "There are no permissions required for making this
//   API call." https://cloud.google.com/resource-manager/reference/rest/v3/projects/testIamPermissions
// - Conditions on resource.type / resource.name (Secret Manager names resources by project number):
//   https://cloud.google.com/iam/docs/conditions-resource-attributes
// - Roles and their permissions: https://cloud.google.com/secret-manager/docs/access-control
// - Version permissions follow the secret's policy ("Permissions on SecretVersions are enforced
//   according to the policy set on the associated Secret"), and project bindings are inherited.
import { status } from '@grpc/grpc-js';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import {
  customRoleName,
  RUNTIME_GRANTS,
  runtimeIam,
} from '../../../emulators/pullsecret/stack/runtime-grants';
import { metadataServerToken } from '../../helpers/metadata-token';
import { secretManagerClient } from '../../helpers/secret-manager';

const PROJECT = 'customer-project';
const OTHER_PROJECT = 'not-onboarded-project';
const JOB = 'pullsecret-job@platform-project.iam.gserviceaccount.com';
const OURS = `projects/${PROJECT}/secrets/hyperfleet-cls-1-pull-secret`;
const FOREIGN = `projects/${PROJECT}/secrets/database-password`;
const PER_SECRET = RUNTIME_GRANTS.customRoles.pullSecretManager!.filter(
  (p) => p !== 'secretmanager.secrets.create',
);

async function codeOf(promise: Promise<unknown>): Promise<{ code?: number; details?: string }> {
  try {
    await promise;
    return {};
  } catch (error) {
    const { code, details } = error as { code?: number; details?: string };
    return { ...(code !== undefined ? { code } : {}), ...(details ? { details } : {}) };
  }
}

describe('Secret Manager emulator: IAM as Terraform grants it', () => {
  let metadata: MetadataServerEmulator;
  let emulator: SecretManagerEmulator;
  let client: SecretManagerServiceClient;
  let token: string;
  const as = (bearer: string) => ({
    otherArgs: { headers: { authorization: `Bearer ${bearer}` } },
  });
  const resourceManager = (project: string, permissions: string[], bearer?: string) =>
    fetch(`${emulator.adminUrl}/v3/projects/${project}:testIamPermissions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({ permissions }),
    });

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: JOB });
    token = await metadataServerToken(metadata.endpoint);
  });
  afterAll(() => metadata.stop());

  beforeEach(async () => {
    emulator = await startSecretManagerEmulator({
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      iam: runtimeIam({
        targets: {
          platformProject: 'platform-project',
          platformProjectNumber: '100000000002',
          job: 'projects/platform-project/locations/us-central1/jobs/pullsecret-job',
          launchQueue: 'projects/platform-project/locations/us-central1/queues/pullsecret-launches',
          launcherAccount: 'pullsecret-launcher@platform-project.iam.gserviceaccount.com',
          tenantProjects: [PROJECT],
          gkeClusterProjects: [],
          fleetHostProjects: [],
        },
        identities: {
          adapter: 'pullsecret-adapter@platform-project.iam.gserviceaccount.com',
          launcher: 'pullsecret-launcher@platform-project.iam.gserviceaccount.com',
          job: JOB,
          reader: 'pullsecret-reader@platform-project.iam.gserviceaccount.com',
          reporter: 'pullsecret-reporter@platform-project.iam.gserviceaccount.com',
        },
        serviceAccounts: { [metadata.uniqueId]: JOB },
      }),
    });
    client = secretManagerClient(emulator.endpoint);
    // The emulator's own calls (no credentials) set the scene, as every Google emulator takes them.
    for (const name of [OURS, FOREIGN])
      await client.createSecret({
        parent: `projects/${PROJECT}`,
        secretId: name.split('/').pop()!,
        secret: { replication: { automatic: {} } },
      });
  });
  afterEach(async () => {
    await client.close();
    await emulator.stop();
  });

  it("TestIamPermissions answers the job's per-secret rights on a hyperfleet-* secret, none on another", async () => {
    const [ours] = await client.testIamPermissions(
      { resource: OURS, permissions: [...PER_SECRET, 'secretmanager.secrets.setIamPolicy'] },
      as(token),
    );
    expect(ours.permissions).toEqual(PER_SECRET);
    const [foreign] = await client.testIamPermissions(
      { resource: FOREIGN, permissions: [...PER_SECRET] },
      as(token),
    );
    expect(foreign.permissions).toEqual([]);
  });

  it('TestIamPermissions on a secret that does not exist answers an empty set, not NOT_FOUND', async () => {
    const [missing] = await client.testIamPermissions(
      {
        resource: `projects/${PROJECT}/secrets/hyperfleet-nobody-pull-secret`,
        permissions: [...PER_SECRET],
      },
      as(token),
    );
    expect(missing.permissions).toEqual([]);
  });

  it('TestIamPermissions refuses wildcard permissions', async () => {
    expect(
      (
        await codeOf(
          client.testIamPermissions(
            { resource: OURS, permissions: ['secretmanager.*'] },
            as(token),
          ),
        )
      ).code,
    ).toBe(status.INVALID_ARGUMENT);
  });

  it('Resource Manager testIamPermissions: secrets.create held on the project through the Project clause, nothing outside the role', async () => {
    const answer = await resourceManager(
      PROJECT,
      [
        'secretmanager.secrets.create',
        'secretmanager.secrets.list',
        'resourcemanager.projects.setIamPolicy',
      ],
      token,
    );
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ permissions: ['secretmanager.secrets.create'] });
  });

  it('Resource Manager testIamPermissions: {} when nothing is held, 403 for an unknown project, 401 without a token', async () => {
    emulator.iam!.replace({
      ...emulator.iam!.snapshot(),
      projects: {
        ...emulator.iam!.snapshot().projects,
        [OTHER_PROJECT]: derivedProjectNumber(OTHER_PROJECT),
      },
    });
    const none = await resourceManager(OTHER_PROJECT, ['secretmanager.secrets.create'], token);
    expect([none.status, await none.json()]).toEqual([200, {}]);
    const unknown = await resourceManager(
      'no-such-project-1',
      ['secretmanager.secrets.create'],
      token,
    );
    expect(unknown.status).toBe(403);
    expect(await unknown.json()).toEqual({
      error: {
        code: 403,
        message: 'The caller does not have permission',
        status: 'PERMISSION_DENIED',
      },
    });
    const anonymous = await resourceManager(PROJECT, ['secretmanager.secrets.create']);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { status: string } }).error.status).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('the job leaves a tombstone (UpdateSecret of ttl and aliases) on its own secret, and can no longer DeleteSecret (issue 38: the role lost secrets.delete)', async () => {
    await expect(
      client.updateSecret(
        {
          secret: { name: OURS, ttl: { seconds: 3600 }, versionAliases: {} },
          updateMask: { paths: ['ttl', 'version_aliases'] },
        },
        as(token),
      ),
    ).resolves.toBeTruthy();
    expect(await codeOf(client.deleteSecret({ name: OURS }, as(token)))).toEqual({
      code: status.PERMISSION_DENIED,
      details: `Permission 'secretmanager.secrets.delete' denied for resource '${OURS}' (or it may not exist).`,
    });
    await expect(client.getSecret({ name: OURS }, as(token))).resolves.toBeTruthy();
  });

  it('enforces the policy on every call with a token: PERMISSION_DENIED before NOT_FOUND outside the condition', async () => {
    await expect(client.getSecret({ name: OURS }, as(token))).resolves.toBeTruthy();
    expect(await codeOf(client.getSecret({ name: FOREIGN }, as(token)))).toEqual({
      code: status.PERMISSION_DENIED,
      details: `Permission 'secretmanager.secrets.get' denied for resource '${FOREIGN}' (or it may not exist).`,
    });
    // Inside the condition a missing secret is NOT_FOUND; outside, the caller learns nothing.
    expect((await codeOf(client.getSecret({ name: `${OURS}-gone` }, as(token)))).code).toBe(
      status.NOT_FOUND,
    );
    expect((await codeOf(client.getSecret({ name: `${FOREIGN}-gone` }, as(token)))).code).toBe(
      status.PERMISSION_DENIED,
    );
    // The role holds no secrets.list, whatever the condition.
    expect(
      (await codeOf(client.listSecrets({ parent: `projects/${PROJECT}` }, as(token)))).code,
    ).toBe(status.PERMISSION_DENIED);
    // Versions follow their secret's policy; CreateSecret is checked on the project.
    const [version] = await client.addSecretVersion(
      { parent: OURS, payload: { data: Buffer.from('x') } },
      as(token),
    );
    await expect(
      client.accessSecretVersion({ name: version.name }, as(token)),
    ).resolves.toBeTruthy();
    await expect(
      client.createSecret(
        {
          parent: `projects/${PROJECT}`,
          secretId: 'hyperfleet-cls-2-pull-secret',
          secret: { replication: { automatic: {} } },
        },
        as(token),
      ),
    ).resolves.toBeTruthy();
  });

  it('leaves calls without credentials to the emulator (client libraries in emulator mode send none)', async () => {
    await expect(client.getSecret({ name: FOREIGN })).resolves.toBeTruthy();
    await expect(client.listSecrets({ parent: `projects/${PROJECT}` })).resolves.toBeTruthy();
  });

  it('refuses a token Google would not accept with UNAUTHENTICATED', async () => {
    expect((await codeOf(client.getSecret({ name: OURS }, as('ya29.not-a-token')))).code).toBe(
      status.UNAUTHENTICATED,
    );
  });

  it('knows a service account by its unique id when the token has no email scope', async () => {
    const bare = await metadataServerToken(metadata.endpoint, [
      'https://www.googleapis.com/auth/cloud-platform',
    ]);
    await expect(client.getSecret({ name: OURS }, as(bare))).resolves.toBeTruthy();
  });

  it('the admin API removes and restores a binding, and the next call sees it', async () => {
    const removal = {
      resource: `projects/${PROJECT}`,
      role: customRoleName(PROJECT, 'pullSecretManager'),
      member: `serviceAccount:${JOB}`,
    };
    const removed = await fetch(`${emulator.adminUrl}/_emulator/iam/bindings`, {
      method: 'DELETE',
      body: JSON.stringify(removal),
    });
    expect(removed.status).toBe(200);
    expect((await codeOf(client.getSecret({ name: OURS }, as(token)))).code).toBe(
      status.PERMISSION_DENIED,
    );
    const [none] = await client.testIamPermissions(
      { resource: OURS, permissions: [...PER_SECRET] },
      as(token),
    );
    expect(none.permissions).toEqual([]);
    const again = await fetch(`${emulator.adminUrl}/_emulator/iam/bindings`, {
      method: 'DELETE',
      body: JSON.stringify(removal),
    });
    expect(again.status).toBe(404);

    const added = await fetch(`${emulator.adminUrl}/_emulator/iam/bindings`, {
      method: 'POST',
      body: JSON.stringify({
        resource: OURS,
        role: 'roles/secretmanager.secretAccessor',
        members: [`serviceAccount:${JOB}`],
      }),
    });
    expect(added.status).toBe(200);
    // A binding on one secret: its versions may be accessed, its metadata still not read.
    const [held] = await client.testIamPermissions(
      {
        resource: OURS,
        permissions: ['secretmanager.versions.access', 'secretmanager.secrets.get'],
      },
      as(token),
    );
    expect(held.permissions).toEqual(['secretmanager.versions.access']);
    const [elsewhere] = await client.testIamPermissions(
      { resource: FOREIGN, permissions: ['secretmanager.versions.access'] },
      as(token),
    );
    expect(elsewhere.permissions).toEqual([]);
  });

  it('refuses a condition outside the CEL subset it evaluates, naming what is unsupported', async () => {
    const answer = await fetch(`${emulator.adminUrl}/_emulator/iam/bindings`, {
      method: 'POST',
      body: JSON.stringify({
        resource: `projects/${PROJECT}`,
        role: 'roles/secretmanager.viewer',
        members: [`serviceAccount:${JOB}`],
        condition: { expression: 'request.time < timestamp("2030-01-01T00:00:00Z")' },
      }),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toContain(
      'unsupported IAM condition',
    );
  });
});
