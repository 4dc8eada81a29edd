// `pull-secret doctor` against the whole local stack, run as an execution of the job (what
// `npm run doctor` and `gcloud run jobs execute JOB --args=doctor,--all-projects` do): green on a
// healthy stack, then each piece broken alone, the check that must fail failing with a fix that
// names the right thing, and restored before the next.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runNode } from '../helpers/run-process';
import { stackSecretManagerClient } from '../helpers/secret-manager';
import { canaryPullSecret, leaks } from '../helpers/canary';
import { CUSTOMER_PROJECT, startTestStack, type DoctorRun, type TestStack } from '../helpers/stack';
import { JOB_IDENTITY } from '../../emulators/pullsecret/stack/layout';
import { customRoleName } from '../../emulators/pullsecret/stack/runtime-grants';
import type { IamBinding } from '../../emulators/common/iam/iam-config';

const FENCE_BINDING =
  '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/hyperfleet-pullsecret-fence';

jest.setTimeout(240_000);

describe('pull-secret doctor on the local stack', () => {
  let stack: TestStack;
  const clusterCanary = canaryPullSecret('doctor-cluster');
  const defaultCanary = canaryPullSecret('doctor-default');
  const outputs: string[] = [];
  const doctor = async (
    args: readonly string[] = ['--all-projects'],
    env?: Record<string, string>,
  ) => {
    const run = await stack.doctor(args, env);
    outputs.push(run.output);
    return run;
  };
  const failing = (run: DoctorRun) =>
    run.checks.filter((c) => c.status === 'FAIL').map((c) => c.name);

  beforeAll(async () => {
    // The stack's platform default pull secret (DEFAULT_PULL_SECRET_VERSION its `latest`), rotated
    // as an operator rotates it: a new version, the canary the doctor reads and must not print.
    stack = await startTestStack({ delivery: 'eventarc' });
    const admin = stackSecretManagerClient(stack.d);
    await admin.addSecretVersion({
      parent: stack.d.defaultPullSecret,
      payload: { data: Buffer.from(defaultCanary.text) },
    });
    await admin.close();
    const id = await stack.createCluster('doctor-cluster', clusterCanary.text);
    await stack.converged(id, undefined, 60_000);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is green on a healthy stack: every check OK but none skipped, exit 0', async () => {
    const run = await doctor();
    expect({ succeeded: run.succeeded, failing: failing(run) }).toEqual({
      succeeded: true,
      failing: [],
    });
    expect(run.checks.map((c) => `${c.name}: ${c.status}`)).toEqual([
      'job-identity: OK',
      'hyperfleet-api: OK',
      'sentinel-topic: OK',
      'delivery: OK',
      `secret-manager ${CUSTOMER_PROJECT} project: OK`,
      `secret-manager ${CUSTOMER_PROJECT} secrets: OK`,
      'cluster mgmt-1 reach: OK',
      'cluster mgmt-1 rbac: OK',
      'cluster mgmt-1 fence: OK',
      'cluster mgmt-2 reach: OK',
      'cluster mgmt-2 rbac: OK',
      'cluster mgmt-2 fence: OK',
      'gke-iam demo-hyperfleet: OK',
      'default-pull-secret: OK',
    ]);
    expect(run.check('delivery').detail).toContain(
      'eventarc: projects/demo-hyperfleet/locations/us-central1/triggers/pullsecret-adapter',
    );
    // The table a person reads, and the verdict line.
    expect(run.output).toMatch(/^CHECK +RESULT +DETAIL$/m);
    expect(run.output).toContain('pull-secret doctor: 14 OK, 0 FAIL, 0 SKIP: no check failed');
  });

  it("flags the job's Secret Manager binding removed: the project and its secrets, fixed by onboarding", async () => {
    const iam = (await stack.secretManagerIam('GET', '/iam')) as { bindings: IamBinding[] };
    const role = customRoleName(CUSTOMER_PROJECT, 'pullSecretManager');
    const binding = iam.bindings.find((b) => b.role === role)!;
    await stack.secretManagerIam('DELETE', '/iam/bindings', {
      resource: `projects/${CUSTOMER_PROJECT}`,
      role,
      member: `serviceAccount:${JOB_IDENTITY}`,
    });
    try {
      const run = await doctor();
      expect(run.succeeded).toBe(false);
      expect(failing(run)).toEqual([
        `secret-manager ${CUSTOMER_PROJECT} project`,
        `secret-manager ${CUSTOMER_PROJECT} secrets`,
      ]);
      const project = run.check(`secret-manager ${CUSTOMER_PROJECT} project`);
      expect(project.detail).toContain('missing secretmanager.secrets.create');
      expect(project.fix?.action).toContain('docs/deployment.md, "Onboarding a customer project"');
      expect(project.fix?.resource).toContain(`projects/${CUSTOMER_PROJECT}`);
      expect(run.check(`secret-manager ${CUSTOMER_PROJECT} secrets`).detail).toContain(
        "Permission 'secretmanager.secrets.get' denied",
      );
    } finally {
      await stack.secretManagerIam('POST', '/iam/bindings', binding);
    }
    expect(failing(await doctor())).toEqual([]);
  });

  it('flags the fence removed from one management cluster (its binding deleted), naming the fence output', async () => {
    const kube = stack.kubes.get('mgmt-2')!;
    const binding = (await kube.get(FENCE_BINDING)) as {
      metadata: Record<string, unknown>;
    } & Record<string, unknown>;
    expect((await kube.request('DELETE', FENCE_BINDING)).status).toBe(200);
    try {
      const run = await doctor();
      expect(failing(run)).toEqual(['cluster mgmt-2 fence']);
      const fence = run.check('cluster mgmt-2 fence');
      expect(fence.detail).toContain('was admitted (nothing was stored)');
      expect(fence.fix?.resource).toContain('hyperfleet-pullsecret-fence in mgmt-2');
      expect(fence.fix?.action).toContain(
        'terraform output -raw management_cluster_fence | kubectl apply -f -',
      );
      expect(run.check('cluster mgmt-1 fence').status).toBe('OK');
    } finally {
      const { name, labels } = binding.metadata as {
        name: string;
        labels?: Record<string, string>;
      };
      const restored = await kube.request(
        'POST',
        FENCE_BINDING.replace(/\/hyperfleet-pullsecret-fence$/, ''),
        { ...binding, metadata: { name, ...(labels ? { labels } : {}) } },
      );
      expect(restored.status).toBe(201);
    }
    expect(failing(await doctor())).toEqual([]);
  });

  it("flags an RBAC permission revoked (patch) and an extra one granted (get on secrets), naming the job's ClusterRole", async () => {
    await stack.setJobSecretVerbs(['create', 'delete']);
    try {
      const run = await doctor();
      expect(failing(run)).toEqual(['cluster mgmt-1 rbac', 'cluster mgmt-2 rbac']);
      const rbac = run.check('cluster mgmt-1 rbac');
      expect(rbac.detail).toBe(
        `may not patch secrets in ${stack.namespaceOf('hyperfleet-doctor')}`,
      );
      expect(rbac.fix?.resource).toContain('ClusterRole hyperfleet-pullsecret-writer');
      expect(rbac.fix?.action).toContain(
        `terraform output -json management_cluster_rbac | jq -r '.["mgmt-1"]' | kubectl apply -f -`,
      );

      await stack.setJobSecretVerbs(['create', 'patch', 'delete', 'get']);
      const excess = (await doctor()).check('cluster mgmt-2 rbac');
      expect(excess.status).toBe('FAIL');
      expect(excess.detail).toBe(
        `may get secrets in ${stack.namespaceOf('hyperfleet-doctor')}, get secrets in kube-system, which the job must not`,
      );
      expect(excess.fix?.problem).toContain("read every hosted cluster's secrets");
      expect(excess.fix?.resource).toContain('ClusterRole "hyperfleet-pullsecret-writer"');
    } finally {
      await stack.setJobSecretVerbs(['create', 'patch', 'delete']);
    }
    expect(failing(await doctor())).toEqual([]);
  });

  it("flags a project-level roles/container.developer on the job: GKE's IAM gives back the Secret reads RBAC leaves out", async () => {
    const grant = {
      resource: 'projects/demo-hyperfleet',
      role: 'roles/container.developer',
      members: [`serviceAccount:${JOB_IDENTITY}`],
    };
    const removal = { resource: grant.resource, role: grant.role, member: grant.members[0] };
    // As `gcloud projects add-iam-policy-binding` would: mgmt-1's IAM layer (the job reaches it at
    // its own endpoint) and Resource Manager's testIamPermissions see the same grant.
    const kube = stack.kubes.get('mgmt-1')!;
    expect((await kube.admin('POST', '/iam/bindings', grant)).status).toBe(200);
    await stack.secretManagerIam('POST', '/iam/bindings', grant);
    try {
      const run = await doctor();
      expect(failing(run)).toEqual(['cluster mgmt-1 rbac', 'gke-iam demo-hyperfleet']);
      const iam = run.check('gke-iam demo-hyperfleet');
      expect(iam.detail).toContain('holds container.secrets.get, container.secrets.list');
      expect(iam.fix?.resource).toContain('most likely roles/container.developer');
      expect(iam.fix?.action).toContain(
        'gcloud projects remove-iam-policy-binding demo-hyperfleet',
      );
      // The cluster answers the job's SelfSubjectAccessReviews with IAM too: reads RBAC denies.
      expect(run.check('cluster mgmt-1 rbac').detail).toContain(
        `get secrets in ${stack.namespaceOf('hyperfleet-doctor')}`,
      );
      expect(run.check('cluster mgmt-1 fence').status).toBe('OK');
    } finally {
      expect((await kube.admin('DELETE', '/iam/bindings', removal)).status).toBe(200);
      await stack.secretManagerIam('DELETE', '/iam/bindings', removal);
    }
    expect(failing(await doctor())).toEqual([]);
  });

  it('flags a HyperFleet token the API does not accept (401), naming the token file', async () => {
    const wrong = path.join(stack.d.workDir, 'wrong-hyperfleet-token');
    fs.writeFileSync(wrong, 'not-the-api-token\n', { mode: 0o600 });
    const run = await doctor(['--all-projects'], { HYPERFLEET_API_AUTH_TOKEN_PATH: wrong });
    expect(run.check('hyperfleet-api')).toMatchObject({ status: 'FAIL' });
    expect(run.check('hyperfleet-api').detail).toMatch(/^401/);
    expect(run.check('hyperfleet-api').fix?.resource).toContain(
      `HYPERFLEET_API_AUTH_TOKEN_PATH=${wrong}`,
    );
    // --all-projects takes its projects from the API: skipped, not failed, when the API refuses.
    expect(run.check('secret-manager').status).toBe('SKIP');
    expect(failing(run)).toEqual(['hyperfleet-api']);
  });

  it('flags a missing Eventarc trigger and a Sentinel topic that does not exist, naming each', async () => {
    const { triggers } = (await stack.eventarcAdmin('GET', '/triggers')) as {
      triggers: { name: string }[];
    };
    const results = triggers.find((t) => t.name.endsWith('/pullsecret-results'))!;
    await stack.eventarcAdmin('DELETE', '/triggers/pullsecret-results');
    try {
      const run = await doctor();
      expect(failing(run)).toEqual(['delivery']);
      expect(run.check('delivery').fix?.resource).toBe(results.name);
      expect(run.check('delivery').fix?.problem).toContain(
        "the job's results to the reporter are not delivered",
      );
    } finally {
      await stack.eventarcAdmin('POST', '/triggers', results);
    }
    const wrongTopic = await doctor(['--all-projects', '--sentinel-topic', 'no-such-topic']);
    // The adapter's trigger reads the real topic, not the one named: both say so.
    expect(failing(wrongTopic)).toEqual(['sentinel-topic', 'delivery']);
    expect(wrongTopic.check('delivery').detail).toContain(
      'pullsecret-adapter reads projects/demo-hyperfleet/topics/hyperfleet-system-clusters, not projects/demo-hyperfleet/topics/no-such-topic',
    );
    expect(wrongTopic.check('sentinel-topic').fix?.resource).toBe(
      'projects/demo-hyperfleet/topics/no-such-topic',
    );
    expect(failing(await doctor())).toEqual([]);
  });

  it('npm run doctor: the same execution from stack.json, its output printed, exit 1 on a FAIL and 3 without a stack', async () => {
    const stackFile = path.join(stack.d.workDir, 'stack.json');
    fs.writeFileSync(stackFile, JSON.stringify(stack.d), { mode: 0o600 });
    const script = path.join(ROOT, 'dist/emulators/pullsecret/stack/doctor.js');
    const red = await runNode(
      script,
      ['--stack', stackFile, '--all-projects', '--sentinel-topic', 'no-such-topic'],
      {},
    );
    outputs.push(red.stdout);
    expect(red.code).toBe(1);
    expect(red.stdout).toMatch(
      /^sentinel-topic +FAIL +projects\/demo-hyperfleet\/topics\/no-such-topic does not exist$/m,
    );
    expect(red.stderr).toMatch(/^doctor: execution pullsecret-job-\w+ failed/m);
    const none = await runNode(script, ['--stack', path.join(stack.d.workDir, 'nothing.json')], {});
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no running local stack');
  });

  it('never prints a pull secret, the HyperFleet token or a Google access token', async () => {
    const hyperfleetToken = fs
      .readFileSync(stack.d.env.HYPERFLEET_API_AUTH_TOKEN_PATH!, 'utf8')
      .trim();
    const jobToken = await stack.jobToken();
    const text = outputs.join('\n');
    expect(outputs.length).toBeGreaterThan(5);
    expect(leaks(text, [clusterCanary, defaultCanary])).toEqual([]);
    expect(text).not.toContain(hyperfleetToken);
    expect(text).not.toContain(jobToken);
  });
});
