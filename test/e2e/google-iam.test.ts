// The local stack's Secret Manager authorizes every call as Google does, from the same grants
// Terraform binds (terraform/modules/runtime-grants.json), for the caller's own identity: a call
// without a token is refused, each runtime identity holds what its grants give and nothing more,
// and a permission taken out of the shared grants stops the end-to-end path that needs it, with
// PermissionDenied naming the permission.
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { PREDEFINED_ROLES } from '../../emulators/common/iam/roles';
import {
  JOB_IDENTITY,
  LOCAL_PROJECT,
  OPERATOR_IDENTITY,
  READER_IDENTITY,
  REPORTER_IDENTITY,
} from '../../emulators/pullsecret/stack/layout';
import {
  RUNTIME_GRANTS,
  runtimeIam,
  withoutPermission,
} from '../../emulators/pullsecret/stack/runtime-grants';
import { canaryPullSecret } from '../helpers/canary';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

const code = async (call: Promise<unknown>) =>
  call.then(
    () => 'OK',
    (error: { code?: number }) => grpc.status[error.code ?? 2],
  );

describe("the stack's Secret Manager checks every call as Google does", () => {
  let stack: TestStack;
  /** A client over the stack's TLS with the given identity's token on each call (none: no token). */
  const clientAs = (token?: () => Promise<string>) => {
    const [host, port] = stack.d.endpoints.secretManager.split(':') as [string, string];
    const tls = grpc.credentials.createSsl(fs.readFileSync(stack.d.endpoints.publicCaFile));
    const sslCreds = token
      ? grpc.credentials.combineChannelCredentials(
          tls,
          grpc.credentials.createFromMetadataGenerator((_p, callback) => {
            token().then(
              (t) => {
                const metadata = new grpc.Metadata();
                metadata.set('authorization', `Bearer ${t}`);
                callback(null, metadata);
              },
              (e: Error) => callback(e),
            );
          }),
        )
      : tls;
    return new SecretManagerServiceClient({ apiEndpoint: host, port: Number(port), sslCreds });
  };
  /** A token of one of the stack's identities, from its own metadata server listener. */
  const tokenOf = (email: string) => async () => {
    const host = stack.d.endpoints.identities[email];
    if (!host) throw new Error(`no metadata listener for ${email}`);
    const answer = await fetch(
      `http://${host}/computeMetadata/v1/instance/service-accounts/default/token?scopes=https://www.googleapis.com/auth/cloud-platform`,
      { headers: { 'Metadata-Flavor': 'Google' } },
    );
    return ((await answer.json()) as { access_token: string }).access_token;
  };
  const foreign = `projects/${CUSTOMER_PROJECT}/secrets/not-ours`;

  beforeAll(async () => {
    stack = await startTestStack();
    await stack.sm.createSecret({
      parent: `projects/${CUSTOMER_PROJECT}`,
      secretId: 'not-ours',
      secret: { replication: { automatic: {} } },
    });
    await stack.sm.addSecretVersion({ parent: foreign, payload: { data: Buffer.from('x') } });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('refuses a call without a token, and answers the operator', async () => {
    const bare = clientAs();
    expect(await code(bare.getSecret({ name: foreign }))).toBe('UNAUTHENTICATED');
    await bare.close();
    expect(await code(stack.sm.getSecret({ name: foreign }))).toBe('OK');
  });

  it("each runtime identity holds its grants' rights on hyperfleet-* secrets and nothing else", async () => {
    const id = await stack.createCluster('iam-rights', canaryPullSecret('iam-rights').text);
    await stack.ready(id, 60_000);
    const ours = `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`;
    const job = clientAs(tokenOf(JOB_IDENTITY));
    const reporter = clientAs(tokenOf(REPORTER_IDENTITY));
    const reader = clientAs(tokenOf(READER_IDENTITY));
    try {
      expect(await code(job.getSecret({ name: ours }))).toBe('OK');
      expect(await code(job.getSecret({ name: foreign }))).toBe('PERMISSION_DENIED');
      expect(await code(job.accessSecretVersion({ name: `${foreign}/versions/1` }))).toBe(
        'PERMISSION_DENIED',
      );
      expect(await code(job.listSecrets({ parent: `projects/${CUSTOMER_PROJECT}` }))).toBe(
        'PERMISSION_DENIED',
      );
      // The reporter reads metadata, never payloads; the reader reads payloads of ours only.
      expect(await code(reporter.getSecret({ name: ours }))).toBe('OK');
      expect(await code(reporter.accessSecretVersion({ name: `${ours}/versions/current` }))).toBe(
        'PERMISSION_DENIED',
      );
      expect(await code(reader.accessSecretVersion({ name: `${ours}/versions/current` }))).toBe(
        'OK',
      );
      expect(await code(reader.accessSecretVersion({ name: `${foreign}/versions/1` }))).toBe(
        'PERMISSION_DENIED',
      );
    } finally {
      await Promise.all([job.close(), reporter.close(), reader.close()]);
    }
  }, 90_000);

  it('the job without secretmanager.versions.add in the shared grants fails with PermissionDenied naming it', async () => {
    const current = (await stack.secretManagerIam('GET', '/iam')) as ReturnType<typeof runtimeIam>;
    const narrowed = withoutPermission(
      RUNTIME_GRANTS,
      'job-manages-tenant-secrets',
      'secretmanager.versions.add',
      (role) => PREDEFINED_ROLES[role] ?? [],
    );
    // The same configuration the stack started with, the job's role narrowed by one permission.
    const rebuilt = runtimeIam({
      targets: {
        platformProject: LOCAL_PROJECT,
        platformProjectNumber: current.projects[LOCAL_PROJECT]!,
        job: 'unused',
        launchQueue: 'unused',
        launcherAccount: 'unused',
        tenantProjects: [CUSTOMER_PROJECT],
        gkeClusterProjects: [],
        fleetHostProjects: [],
      },
      identities: {
        adapter: 'unused@x.iam.gserviceaccount.com',
        launcher: 'unused@x.iam.gserviceaccount.com',
        job: JOB_IDENTITY,
        reader: READER_IDENTITY,
        reporter: REPORTER_IDENTITY,
      },
      grants: narrowed,
    });
    const narrowedRole = Object.keys(rebuilt.customRoles ?? {}).find((r) =>
      r.includes('withoutJobManagesTenantSecrets'),
    )!;
    await stack.secretManagerIam('PUT', '/iam', {
      ...current,
      customRoles: { ...current.customRoles, ...rebuilt.customRoles },
      bindings: current.bindings?.map((b) =>
        b.resource === `projects/${CUSTOMER_PROJECT}` &&
        b.members.includes(`serviceAccount:${JOB_IDENTITY}`)
          ? { ...b, role: narrowedRole }
          : b,
      ),
    });
    try {
      const id = await stack.createCluster('iam-narrowed', canaryPullSecret('iam-narrowed').text);
      const refused = await stack.waitFor(
        'PermissionDenied',
        async () => {
          const own = await stack.own(id);
          return own?.availableReason === 'PermissionDenied' ? own : undefined;
        },
        90_000,
      );
      expect(refused).toMatchObject({ health: 'False' });
      const health = (await stack.api.listStatuses(id))
        .find((s) => s.adapter === 'pullsecret')
        ?.conditions.find((c) => c.type === 'Health');
      expect(health?.message).toContain('secretmanager.versions.add');
    } finally {
      await stack.secretManagerIam('PUT', '/iam', current);
    }
    // The operator is never a runtime identity: it is bound only by the stack, not the grants.
    expect(JSON.stringify(RUNTIME_GRANTS)).not.toContain(OPERATOR_IDENTITY);
  }, 150_000);
});
