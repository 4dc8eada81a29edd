// The local stack's Secret Manager authorizes every call as Google does, from the same grants
// Terraform binds (terraform/modules/runtime-grants.json), for the caller's own identity: a call
// without a token is refused, each runtime identity holds what its grants give and nothing more,
// and a permission taken out of the shared grants stops the end-to-end path that needs it, with
// PermissionDenied naming the permission.
import * as grpc from '@grpc/grpc-js';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { CloudTasksClient } from '@google-cloud/tasks';
import { v2 } from '@google-cloud/run';
import type { IamConfig } from '../../emulators/common/iam/iam-config';
import { PREDEFINED_ROLES } from '../../emulators/common/iam/roles';
import { localStackIam } from '../../emulators/pullsecret/stack/stack-iam';
import {
  metadataServerToken,
  tokenClientOptions,
} from '../../emulators/pullsecret/stack/operator-credentials';
import {
  ADAPTER_IDENTITY,
  JOB_IDENTITY,
  OPERATOR_IDENTITY,
  READER_IDENTITY,
  REPORTER_IDENTITY,
} from '../../emulators/pullsecret/stack/layout';
import { RUNTIME_GRANTS, withoutPermission } from '../../emulators/pullsecret/stack/runtime-grants';
import { canaryPullSecret } from '../helpers/canary';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

const code = async (call: Promise<unknown>) =>
  call.then(
    () => 'OK',
    (error: { code?: number }) => grpc.status[error.code ?? 2],
  );

/** [grant, permission taken away, what the report names] on a create's path. */
const CREATE_PATH: [string, string, string][] = [
  ['job-manages-tenant-secrets', 'secretmanager.versions.add', 'secretmanager.versions.add'],
  ['job-manages-tenant-secrets', 'secretmanager.secrets.create', 'secretmanager.secrets.create'],
  ['job-manages-tenant-secrets', 'secretmanager.secrets.get', 'secretmanager.secrets.get'],
  ['job-manages-tenant-secrets', 'secretmanager.secrets.update', 'secretmanager.secrets.update'],
  ['job-sees-gke-clusters', 'container.clusters.get', 'container.clusters.get'],
  ['adapter-enqueues-launches', 'cloudtasks.tasks.create', 'cloudtasks.tasks.create'],
  ['adapter-acts-as-launcher', 'iam.serviceAccounts.actAs', 'iam.serviceAccounts.actAs'],
  [
    'launcher-runs-job',
    'run.jobs.runWithOverrides',
    'launcher service account (roles/run.jobsExecutorWithOverrides',
  ],
  [
    'launcher-runs-job',
    'run.jobs.run',
    'launcher service account (roles/run.jobsExecutorWithOverrides',
  ],
];

/** Permissions only a later step uses, each taken away before that step. */
const LATER_STEPS = [
  ['update', 'secretmanager.versions.access'],
  ['delete', 'secretmanager.versions.destroy'],
  ['delete', 'secretmanager.versions.list'],
] as const;

/** The adapter's reads of a refused launch: its task (GetTask), then its deletion (DeleteTask). */
const REFUSED_LAUNCH = ['cloudtasks.tasks.get', 'cloudtasks.tasks.delete'] as const;

/**
 * The permissions of the shared grants this file does not take away, and why: each is exercised by
 * the test named, or its path is not one the stack runs.
 */
const NOT_TAKEN_AWAY: Record<string, string> = {
  'job-manages-tenant-secrets secretmanager.versions.disable':
    'ON_DELETE=retain only, which the stack does not run: the call is tested in test/integration/job/delete.test.ts',
  'adapter-reads-executions run.tasks.get':
    "a failed execution's reason, read after GetExecution (taken away above)",
  'adapter-reads-executions run.tasks.list':
    "a failed execution's reason, read after GetExecution (taken away above)",
  'reporter-views-tenant-secrets secretmanager.secrets.get':
    "a duplicate execution's success: shown allowed above ('each runtime identity holds'); the path: test/integration/reporter/duplicate-executions.test.ts",
  'reader-accesses-tenant-secrets secretmanager.versions.access':
    "HyperShift's reader: shown allowed and bounded above ('each runtime identity holds')",
};

describe("the stack's Secret Manager checks every call as Google does", () => {
  let stack: TestStack;
  /** Options for a client over the stack's TLS with an identity's token on each call (none: no token). */
  const tlsOptions = (endpoint: string, token?: () => Promise<string>) =>
    tokenClientOptions(endpoint, stack.d.endpoints.publicCaFile, token);
  const clientAs = (token?: () => Promise<string>) =>
    new SecretManagerServiceClient(tlsOptions(stack.d.endpoints.secretManager, token));
  /** A token of one of the stack's identities, from its own metadata server listener. */
  const tokenOf = (email: string) => () => {
    const host = stack.d.endpoints.identities[email];
    if (!host) throw new Error(`no metadata listener for ${email}`);
    return metadataServerToken(`http://${host}`);
  };
  const foreign = `projects/${CUSTOMER_PROJECT}/secrets/not-ours`;

  beforeAll(async () => {
    // A refused launch is looked at after 5 s, a silent execution after 10 s (30 s and longer in
    // production), so their rows end sooner.
    stack = await startTestStack({
      adapterEnv: { LAUNCH_CHECK_AFTER: '5s', EXECUTION_CHECK_AFTER: '10s' },
    });
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

  /** Every emulator that authorizes calls, each with its admin IAM route. */
  const iamAdmins = () => [
    (method: 'GET' | 'PUT', body?: unknown) => stack.secretManagerIam(method, '/iam', body),
    ...[stack.d.endpoints.cloudRunAdmin, stack.d.endpoints.cloudTasksAdmin].map(
      (admin) => async (method: 'GET' | 'PUT', body?: unknown) => {
        const answer = await fetch(`${admin}/_emulator/iam`, {
          method,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(answer.status).toBe(200);
        return answer.json() as Promise<unknown>;
      },
    ),
    ...[...stack.kubes.values()].map((kube) => async (method: 'GET' | 'PUT', body?: unknown) => {
      const answer = await kube.admin(method, '/iam', body);
      // A cluster reached through Connect Gateway has no GKE IAM layer (404).
      return answer.status === 200 ? (JSON.parse(answer.body) as unknown) : undefined;
    }),
  ];

  /**
   * Runs `body` with each `[grant, permission]` of `taken` out of the shared grants in every
   * emulator at once, then restores what each held.
   */
  const withoutGrantPermissions = async (
    taken: readonly (readonly [string, string])[],
    body: () => Promise<void>,
  ) => {
    const current = (await stack.secretManagerIam('GET', '/iam')) as IamConfig;
    // The default the stack configured (stack.json's defaultPullSecret), as its grants name it.
    const defaultVersion =
      stack.d.defaultPullSecret && `${stack.d.defaultPullSecret}/versions/latest`;
    const narrowed = localStackIam({
      serviceAccounts: current.serviceAccounts,
      clusterModes: Object.values(stack.d.managementClusters).map((c) => c.mode),
      ...(defaultVersion ? { defaultPullSecretVersion: defaultVersion } : {}),
      grants: taken.reduce(
        (grants, [grantKey, permission]) =>
          withoutPermission(grants, grantKey, permission, (role) => PREDEFINED_ROLES[role] ?? []),
        RUNTIME_GRANTS,
      ),
    });
    const admins = iamAdmins();
    const before = await Promise.all(admins.map((admin) => admin('GET')));
    await Promise.all(admins.map((admin, n) => (before[n] ? admin('PUT', narrowed) : undefined)));
    try {
      await body();
    } finally {
      await Promise.all(
        admins.map((admin, n) => (before[n] ? admin('PUT', before[n]) : undefined)),
      );
    }
  };
  const withoutGrantPermission = (
    grantKey: string,
    permission: string,
    body: () => Promise<void>,
  ) => withoutGrantPermissions([[grantKey, permission]], body);

  /** The pullsecret status's Health message once the cluster reports PermissionDenied. */
  const permissionDenied = async (id: string) => {
    await stack.waitFor(
      'PermissionDenied',
      async () => {
        const own = await stack.own(id);
        return own?.availableReason === 'PermissionDenied' ? own : undefined;
      },
      120_000,
    );
    return (await stack.api.listStatuses(id))
      .find((s) => s.adapter === 'pullsecret')
      ?.conditions.find((c) => c.type === 'Health')?.message;
  };

  // One permission of one identity taken out of the shared grants (runtime-grants.json): the path
  // that needs it fails with PermissionDenied naming it, in every emulator at once.
  // A refused launch is known only from the launch task's last attempt, whose status Cloud Tasks
  // keeps without the answer's body (Attempt.response_status): the report names the launcher and
  // the role it needs there, not the permission.
  it.each(CREATE_PATH)(
    '%s without %s: a create fails PermissionDenied naming it',
    async (grantKey, permission, named) => {
      await withoutGrantPermission(grantKey, permission, async () => {
        const name = `iam-${permission.split('.').slice(1).join('-').toLowerCase()}`.slice(0, 40);
        // The GKE layer guards the clusters the job reaches at their own endpoint (mgmt-1, ip).
        await stack.placeNext(name, { managementCluster: 'mgmt-1' });
        const id = await stack.createCluster(name, canaryPullSecret(name).text);
        expect(await permissionDenied(id)).toContain(named);
      });
    },
    180_000,
  );

  // The stack's platform default (DEFAULT_PULL_SECRET_VERSION): a cluster without a pull secret in
  // its spec is provisioned from it, which the job reads with this one permission on that secret.
  it('job-reads-default-pull-secret without secretmanager.versions.access: a cluster on the default fails PermissionDenied naming it', async () => {
    await withoutGrantPermission(
      'job-reads-default-pull-secret',
      'secretmanager.versions.access',
      async () => {
        const id = await stack.createCluster('iam-default-access', undefined);
        expect(await permissionDenied(id)).toContain('secretmanager.versions.access');
      },
    );
  }, 180_000);

  // The stack's default is `latest`, read as the newest enabled version: ListSecretVersions first.
  it('job-lists-default-pull-secret-versions without secretmanager.versions.list: a cluster on the default fails PermissionDenied naming it', async () => {
    await withoutGrantPermission(
      'job-lists-default-pull-secret-versions',
      'secretmanager.versions.list',
      async () => {
        const id = await stack.createCluster('iam-default-list', undefined);
        expect(await permissionDenied(id)).toContain('secretmanager.versions.list');
      },
    );
  }, 180_000);

  // Permissions only a later step uses: an update reads the current bytes to compare them
  // (AccessSecretVersion), a delete destroys every version (DestroySecretVersion).
  it.each(LATER_STEPS)(
    'job-manages-tenant-secrets without %s-path %s: that step fails PermissionDenied naming it',
    async (step, permission) => {
      const name = `iam-${step}-${permission.split('.').pop()!.toLowerCase()}`;
      const id = await stack.createCluster(name, canaryPullSecret(name).text);
      await stack.ready(id, 60_000);
      await withoutGrantPermission('job-manages-tenant-secrets', permission, async () => {
        if (step === 'update')
          await stack.api.patchCluster(id, {
            spec: { pullSecret: { data: canaryPullSecret(`${name}-2`).text } },
          });
        else await stack.api.deleteCluster(id);
        expect(await permissionDenied(id)).toContain(permission);
      });
    },
    180_000,
  );

  // A refused launch (the launcher without run.jobs.run) is read back from its task (GetTask) and
  // deleted when refused for good (DeleteTask), as the adapter: without either, it says so.
  it.each(REFUSED_LAUNCH)(
    'adapter-reads-deletes-launch-tasks without %s: a refused launch is reported naming it',
    async (permission) => {
      const name = `iam-refused-${permission.split('.').pop()!}`;
      await withoutGrantPermissions(
        [
          ['launcher-runs-job', 'run.jobs.run'],
          ['adapter-reads-deletes-launch-tasks', permission],
        ],
        async () => {
          const id = await stack.createCluster(name, canaryPullSecret(name).text);
          expect(await permissionDenied(id)).toContain(permission);
        },
      );
    },
    120_000,
  );

  // A killed execution is reported from Cloud Run's finished event: the reporter reads the
  // execution (GetExecution); without run.executions.get it says so.
  it('reporter-reads-executions without run.executions.get: a killed execution is logged naming it (the adapter then reads it itself)', async () => {
    await withoutGrantPermission('reporter-reads-executions', 'run.executions.get', async () => {
      await stack.killNext(1, 0);
      const id = await stack.createCluster('iam-killed', canaryPullSecret('iam-killed').text);
      await stack.waitFor(
        "the reporter's refusal naming run.executions.get",
        async () =>
          stack
            .logText()
            .split('\n')
            .find(
              (line) => line.includes('run.executions.get') && line.includes('PERMISSION_DENIED'),
            ),
        90_000,
      );
      expect(id).toBeTruthy();
    });
  }, 120_000);

  // An execution that runs long (every CreateSecret held) is read by the adapter after
  // EXECUTION_CHECK_AFTER (GetExecution); without run.executions.get it reports that.
  it('adapter-reads-executions without run.executions.get: a long execution is reported naming it', async () => {
    await withoutGrantPermission('adapter-reads-executions', 'run.executions.get', async () => {
      await stack.fault('secret-manager', {
        match: 'CreateSecret',
        target: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-`,
        hold: true,
        // Every attempt: the job's retries of a create past its deadline stay held too, so the
        // execution outlasts EXECUTION_CHECK_AFTER whatever the machine's speed.
        count: 1000,
      });
      try {
        const id = await stack.createCluster('iam-long', canaryPullSecret('iam-long').text);
        expect(await permissionDenied(id)).toContain('run.executions.get');
      } finally {
        await stack.clearFaults('secret-manager');
      }
    });
  }, 180_000);

  it('the doctor names a permission taken from the job and the fix', async () => {
    // The doctor asks about the job's rights on a secret of a cluster the HyperFleet API lists.
    const id = await stack.createCluster('iam-doctor', canaryPullSecret('iam-doctor').text);
    await stack.ready(id, 60_000);
    await withoutGrantPermission(
      'job-manages-tenant-secrets',
      'secretmanager.versions.add',
      async () => {
        const run = await stack.doctor([`--project`, CUSTOMER_PROJECT]);
        const project = run.checks.find(
          (c) => c.name === `secret-manager ${CUSTOMER_PROJECT} project`,
        );
        const secrets = run.checks.find(
          (c) => c.name === `secret-manager ${CUSTOMER_PROJECT} secrets`,
        );
        expect([project?.status, secrets?.status]).toContain('FAIL');
        const failed = [project, secrets].filter((c) => c?.status === 'FAIL');
        expect(failed.map((c) => c!.detail).join('\n')).toContain('secretmanager.versions.add');
        expect(failed.map((c) => c!.fix?.action ?? '').join('\n')).toContain(
          'Onboarding a customer project',
        );
      },
    );
  }, 120_000);

  it('neither the adapter nor the job can run the job, the reporter cannot launch, the job cannot read the queue', async () => {
    const run = (email: string) =>
      new v2.JobsClient(tlsOptions(stack.d.endpoints.cloudRun, tokenOf(email)));
    const tasks = (email: string) =>
      new CloudTasksClient(tlsOptions(stack.d.endpoints.cloudTasks, tokenOf(email)));
    const bareRun = new v2.JobsClient(tlsOptions(stack.d.endpoints.cloudRun));
    const adapterRun = run(ADAPTER_IDENTITY);
    const jobRun = run(JOB_IDENTITY);
    const jobTasks = tasks(JOB_IDENTITY);
    const reporterTasks = tasks(REPORTER_IDENTITY);
    try {
      expect(await code(bareRun.getJob({ name: stack.d.job }))).toBe('UNAUTHENTICATED');
      const runJob = { name: stack.d.job, overrides: { containerOverrides: [{ env: [] }] } };
      expect(await code(adapterRun.runJob(runJob))).toBe('PERMISSION_DENIED');
      expect(await code(jobRun.runJob(runJob))).toBe('PERMISSION_DENIED');
      expect(await code(jobTasks.listTasks({ parent: stack.d.launchQueue }))).toBe(
        'PERMISSION_DENIED',
      );
      expect(
        await code(
          reporterTasks.createTask({
            parent: stack.d.launchQueue,
            task: {
              httpRequest: { url: 'https://run.googleapis.com/v2/x:run', httpMethod: 'POST' },
            },
          }),
        ),
      ).toBe('PERMISSION_DENIED');
    } finally {
      await Promise.all([
        bareRun.close(),
        adapterRun.close(),
        jobRun.close(),
        jobTasks.close(),
        reporterTasks.close(),
      ]);
    }
  });

  it('the operator is bound only by the stack, never by the shared grants', () => {
    expect(JSON.stringify(RUNTIME_GRANTS)).not.toContain(OPERATOR_IDENTITY);
  });

  it("takes away every permission of the shared grants the product's calls use, or says why not", () => {
    const taken = new Set([
      ...CREATE_PATH.map(([grant, permission]) => `${grant} ${permission}`),
      ...LATER_STEPS.map(([, permission]) => `job-manages-tenant-secrets ${permission}`),
      ...REFUSED_LAUNCH.map((permission) => `adapter-reads-deletes-launch-tasks ${permission}`),
      'reporter-reads-executions run.executions.get',
      'adapter-reads-executions run.executions.get',
      'job-reads-default-pull-secret secretmanager.versions.access',
      'job-lists-default-pull-secret-versions secretmanager.versions.list',
    ]);
    // The permissions the product's calls use, by grant: a custom role's all of them; of a
    // predefined role, those the calls check (the rest come with the role).
    const used: Record<string, readonly string[]> = {
      'job-manages-tenant-secrets': RUNTIME_GRANTS.customRoles.pullSecretManager!,
      'job-reads-default-pull-secret': ['secretmanager.versions.access'],
      'job-lists-default-pull-secret-versions': ['secretmanager.versions.list'],
      'job-sees-gke-clusters': ['container.clusters.get'],
      'adapter-enqueues-launches': ['cloudtasks.tasks.create'],
      'adapter-acts-as-launcher': ['iam.serviceAccounts.actAs'],
      'adapter-reads-deletes-launch-tasks': RUNTIME_GRANTS.customRoles.pullSecretLaunchTasks!,
      'adapter-reads-executions': RUNTIME_GRANTS.customRoles.pullSecretExecutionReader!,
      'launcher-runs-job': ['run.jobs.run', 'run.jobs.runWithOverrides'],
      'reporter-reads-executions': ['run.executions.get'],
      'reporter-views-tenant-secrets': ['secretmanager.secrets.get'],
      'reader-accesses-tenant-secrets': ['secretmanager.versions.access'],
    };
    const unaccounted = Object.entries(used)
      .flatMap(([grant, permissions]) => permissions.map((p) => `${grant} ${p}`))
      .filter((key) => !taken.has(key) && !(key in NOT_TAKEN_AWAY));
    expect(unaccounted).toEqual([]);
    for (const key of Object.keys(NOT_TAKEN_AWAY)) expect(taken.has(key)).toBe(false);
  });
});
