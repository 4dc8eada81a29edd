// The doctor's pure decisions: from what each API answered to OK / FAIL / SKIP and the fix.
import { judgeReach } from '../../../functions/pull-secret-job/doctor/cluster-reach';
import {
  expectedRights,
  judgeClusterRights,
  type AccessAnswer,
} from '../../../functions/pull-secret-job/doctor/cluster-rights';
import { judgeDefaultPullSecret } from '../../../functions/pull-secret-job/doctor/default-pull-secret-check';
import {
  judgeDelivery,
  judgeSentinelTopic,
  type Route,
  type RouteWiring,
} from '../../../functions/pull-secret-job/doctor/delivery-check';
import { fenceProbes, judgeFence } from '../../../functions/pull-secret-job/doctor/fence-check';
import {
  GKE_ASKED,
  judgeGkeIam,
  likelyRoles,
} from '../../../functions/pull-secret-job/doctor/gke-iam-check';
import { judgeHyperFleet } from '../../../functions/pull-secret-job/doctor/hyperfleet-check';
import type { ReadAnswer } from '../../../functions/pull-secret-job/doctor/read-answer';
import {
  judgeProjectRights,
  judgeSecretRights,
  SECRET_REQUIRED,
} from '../../../functions/pull-secret-job/doctor/secret-manager-check';
import { candidateClusters } from '../../../functions/pull-secret-job/doctor/secret-manager-probe';
import type { Cluster } from '../../../shared/hyperfleet/schemas';

const JOB = 'pullsecret-job@platform.iam.gserviceaccount.com';

describe('hyperfleet-api', () => {
  const setting = {
    baseUrl: 'https://api.example.com',
    auth: 'token-file' as const,
    tokenPath: '/var/secrets/hyperfleet/token',
    caller: 'a system component (X-HyperFleet-System: true)',
  };

  it('tells unreachable, 401, 403 and a bad base URL apart, each with its own fix', () => {
    const unreachable = judgeHyperFleet({ kind: 'unreachable', detail: 'ECONNREFUSED' }, setting);
    const unauthorized = judgeHyperFleet(
      { kind: 'refused', status: 401, code: 'HYPERFLEET-AUT-001' },
      setting,
    );
    const forbidden = judgeHyperFleet(
      { kind: 'refused', status: 403, code: 'HYPERFLEET-AUZ-001' },
      setting,
    );
    const noRoute = judgeHyperFleet(
      {
        kind: 'no-route',
        url: 'https://api.example.com/x/api/hyperfleet/v1/clusters',
        code: 'HYPERFLEET-NTF-000',
      },
      setting,
    );
    expect([unreachable, unauthorized, forbidden, noRoute].map((r) => r.status)).toEqual([
      'FAIL',
      'FAIL',
      'FAIL',
      'FAIL',
    ]);
    expect(unreachable.fix?.resource).toContain("the job's network egress");
    expect(unauthorized.detail).toBe(
      "401 HYPERFLEET-AUT-001: the API does not accept the job's credentials",
    );
    expect(unauthorized.fix?.resource).toContain(
      'HYPERFLEET_API_AUTH_TOKEN_PATH=/var/secrets/hyperfleet/token',
    );
    expect(forbidden.fix?.action).toContain('hyperfleet_api.system_header');
    expect(noRoute.fix?.resource).toContain('HYPERFLEET_API_BASE_URL=https://api.example.com');
    expect(noRoute.fix?.action).toContain('no path');
  });

  it('is OK when the read answers, and says as whom', () => {
    const result = judgeHyperFleet({ kind: 'listed', total: 3 }, setting);
    expect(result).toEqual({
      name: 'hyperfleet-api',
      status: 'OK',
      detail:
        'GET https://api.example.com/api/hyperfleet/…/clusters?size=1 answered (3 clusters in total) as a system component (X-HyperFleet-System: true), with the token file',
    });
  });
});

describe('sentinel-topic and delivery', () => {
  const topics = {
    adapter: 'projects/p/topics/hyperfleet-system-clusters',
    results: 'projects/p/topics/pullsecret-job-results',
    finished: 'projects/p/topics/pullsecret-execution-finished',
  };
  const names = {
    triggerName: (r: Route) => `projects/p/locations/us-central1/triggers/pullsecret-${r}`,
    subscriptionName: (r: Route) => `projects/p/subscriptions/pullsecret-${r}`,
  };
  const each = (make: (r: Route) => ReadAnswer<RouteWiring>) =>
    ({ adapter: make('adapter'), results: make('results'), finished: make('finished') }) as Record<
      Route,
      ReadAnswer<RouteWiring>
    >;
  const found = (r: Route, extra: Partial<RouteWiring> = {}): ReadAnswer<RouteWiring> => ({
    kind: 'found',
    value: { topic: topics[r], ...extra },
  });
  const missing: ReadAnswer<RouteWiring> = { kind: 'missing' };

  it("Sentinel's topic: OK, FAIL when missing (naming it), SKIP when the job may not read it", () => {
    expect(
      judgeSentinelTopic(topics.adapter, { kind: 'found', value: { name: topics.adapter } }).status,
    ).toBe('OK');
    const gone = judgeSentinelTopic(topics.adapter, { kind: 'missing' });
    expect(gone).toMatchObject({ status: 'FAIL', fix: { resource: topics.adapter } });
    const denied = judgeSentinelTopic(topics.adapter, {
      kind: 'denied',
      message: 'Permission denied',
    });
    expect(denied).toMatchObject({
      status: 'SKIP',
      fix: { action: expect.stringContaining('doctor.tf') },
    });
  });

  it('eventarc: OK with the three triggers on their topics, FAIL naming a missing one or a wrong topic', () => {
    expect(
      judgeDelivery({ triggers: each((r) => found(r)), expected: topics, ...names }).status,
    ).toBe('OK');
    const oneMissing = judgeDelivery({
      triggers: each((r) => (r === 'finished' ? missing : found(r))),
      expected: topics,
      ...names,
    });
    expect(oneMissing).toMatchObject({
      status: 'FAIL',
      detail: 'eventarc: projects/p/locations/us-central1/triggers/pullsecret-finished missing',
      fix: { resource: names.triggerName('finished') },
    });
    const wrongTopic = judgeDelivery({
      triggers: each((r) =>
        r === 'adapter' ? found(r, { topic: 'projects/p/topics/other' }) : found(r),
      ),
      expected: topics,
      ...names,
    });
    expect(wrongTopic.detail).toContain(
      'pullsecret-adapter reads projects/p/topics/other, not projects/p/topics/hyperfleet-system-clusters',
    );
  });

  it('push-subscription: read only when no trigger exists; a detached one fails; none at all fails', () => {
    const push = (r: Route) => found(r, { pushEndpoint: `https://fn/${r}` });
    expect(
      judgeDelivery({
        triggers: each(() => missing),
        subscriptions: each(push),
        expected: topics,
        ...names,
      }).detail,
    ).toMatch(/^push-subscription: /);
    const detached = judgeDelivery({
      triggers: each(() => missing),
      subscriptions: each((r) => (r === 'results' ? found(r) : push(r))),
      expected: topics,
      ...names,
    });
    expect(detached).toMatchObject({
      status: 'FAIL',
      detail: expect.stringContaining('pullsecret-results has no push endpoint'),
    });
    const nothing = judgeDelivery({
      triggers: each(() => missing),
      subscriptions: each(() => missing),
      expected: topics,
      ...names,
    });
    expect(nothing).toMatchObject({
      status: 'FAIL',
      detail: 'neither the Eventarc triggers nor the push subscriptions exist',
    });
  });

  it('a trigger the job may not read is a SKIP with the grant, never a FAIL on a correct deployment', () => {
    const result = judgeDelivery({
      triggers: each((r) =>
        r === 'adapter'
          ? { kind: 'denied', message: "Permission 'eventarc.triggers.get' denied" }
          : found(r),
      ),
      expected: topics,
      ...names,
    });
    expect(result).toMatchObject({
      status: 'SKIP',
      fix: { action: expect.stringContaining('eventarc.triggers.get') },
    });
  });
});

describe('secret-manager', () => {
  it('the project: OK with secrets.create and nothing more; missing or excess rights fail; no access fails; API off skips', () => {
    expect(
      judgeProjectRights(
        'cust',
        { kind: 'held', permissions: ['secretmanager.secrets.create'] },
        JOB,
      ).status,
    ).toBe('OK');
    const missing = judgeProjectRights('cust', { kind: 'held', permissions: [] }, JOB);
    expect(missing).toMatchObject({
      status: 'FAIL',
      fix: { action: expect.stringContaining('"Onboarding a customer project"') },
    });
    const excess = judgeProjectRights(
      'cust',
      { kind: 'held', permissions: ['secretmanager.secrets.create', 'secretmanager.secrets.list'] },
      JOB,
    );
    expect(excess).toMatchObject({
      status: 'FAIL',
      detail: expect.stringContaining('holds secretmanager.secrets.list'),
    });
    expect(excess.fix?.resource).toContain(`gcloud projects get-iam-policy cust`);
    expect(
      judgeProjectRights(
        'cust',
        { kind: 'no-access', message: 'The caller does not have permission' },
        JOB,
      ).status,
    ).toBe('FAIL');
    expect(
      judgeProjectRights('cust', { kind: 'api-off', message: 'SERVICE_DISABLED' }, JOB),
    ).toMatchObject({
      status: 'SKIP',
      fix: { resource: expect.stringContaining('cloudresourcemanager.googleapis.com') },
    });
  });

  it('its secrets: tested on an existing one; a missing permission or an IAM one fails; none yet is a SKIP', () => {
    const secret = 'projects/cust/secrets/hyperfleet-c1-pull-secret';
    expect(
      judgeSecretRights('cust', { kind: 'tested', secret, held: [...SECRET_REQUIRED] }, JOB).status,
    ).toBe('OK');
    const lacking = judgeSecretRights(
      'cust',
      {
        kind: 'tested',
        secret,
        held: SECRET_REQUIRED.filter((p) => p !== 'secretmanager.versions.add'),
      },
      JOB,
    );
    expect(lacking).toMatchObject({
      status: 'FAIL',
      detail: `missing secretmanager.versions.add on ${secret}`,
    });
    const iam = judgeSecretRights(
      'cust',
      { kind: 'tested', secret, held: [...SECRET_REQUIRED, 'secretmanager.secrets.setIamPolicy'] },
      JOB,
    );
    expect(iam.status).toBe('FAIL');
    expect(
      judgeSecretRights('cust', { kind: 'none-exists', tried: ['hyperfleet-c1-pull-secret'] }, JOB)
        .status,
    ).toBe('SKIP');
    expect(
      judgeSecretRights('cust', { kind: 'denied', secret, message: 'denied' }, JOB).fix?.action,
    ).toContain('Onboarding a customer project');
  });

  it('tests on --cluster first, then the project’s clusters not being deleted, at most three of them', () => {
    const cluster = (id: string, project: string, deleted = false) =>
      ({
        id,
        spec: { platform: { gcp: { projectID: project } } },
        ...(deleted ? { deleted_time: 'x' } : {}),
      }) as unknown as Cluster;
    const clusters = [
      cluster('a', 'cust', true),
      cluster('b', 'other'),
      cluster('c', 'cust'),
      cluster('d', 'cust'),
      cluster('e', 'cust'),
    ];
    expect(candidateClusters('cust', clusters, [])).toEqual(['c', 'd', 'e']);
    expect(candidateClusters('cust', clusters, ['z'])).toEqual(['z', 'c', 'd', 'e']);
    expect(candidateClusters('cust', undefined, [])).toEqual([]);
  });
});

describe('management clusters', () => {
  const expectations = expectedRights('clusters-x');
  const asTemplate = (): AccessAnswer[] =>
    expectations.map((e) => ({ kind: 'answered', allowed: e.allowed }));

  it('asks for what the RBAC template gives and, as important, what it must not', () => {
    expect(expectations.filter((e) => e.allowed).map((e) => `${e.verb} ${e.resource}`)).toEqual([
      'create secrets',
      'patch secrets',
      'delete secrets',
    ]);
    const denied = expectations
      .filter((e) => !e.allowed)
      .map((e) => `${e.verb} ${e.group}/${e.resource}`);
    expect(denied).toEqual(
      expect.arrayContaining([
        'get /secrets',
        'list /secrets',
        'watch /secrets',
        'update /secrets',
        'bind rbac.authorization.k8s.io/clusterroles',
        'delete admissionregistration.k8s.io/validatingadmissionpolicybindings',
        'impersonate /users',
      ]),
    );
  });

  it('OK when RBAC answers as the template; FAIL naming a missing verb; FAIL naming the grant of an excess one', () => {
    expect(judgeClusterRights('mgmt-1', JOB, expectations, asTemplate()).status).toBe('OK');
    const noPatch = asTemplate().map((a, i) =>
      expectations[i]!.verb === 'patch' && expectations[i]!.resource === 'secrets'
        ? { kind: 'answered' as const, allowed: false }
        : a,
    );
    expect(judgeClusterRights('mgmt-1', JOB, expectations, noPatch)).toMatchObject({
      status: 'FAIL',
      detail: 'may not patch secrets in clusters-x',
    });
    const reason =
      'RBAC: allowed by ClusterRoleBinding "extra" of ClusterRole "reader" to User "job"';
    const list = asTemplate().map((a, i) =>
      expectations[i]!.verb === 'list' && expectations[i]!.resource === 'secrets'
        ? { kind: 'answered' as const, allowed: true, reason }
        : a,
    );
    const excess = judgeClusterRights('mgmt-1', JOB, expectations, list);
    expect(excess).toMatchObject({
      status: 'FAIL',
      detail:
        'may list secrets in clusters-x, list secrets in every namespace, which the job must not',
    });
    expect(excess.fix?.resource).toContain(reason);
    expect(excess.fix?.problem).toContain("read every hosted cluster's secrets");
  });

  it('the fence: OK when its policy refused each probe, FAIL when one was admitted, SKIP when something else refused first', () => {
    const probes = fenceProbes();
    const byFence = {
      kind: 'refused' as const,
      status: 403,
      message:
        "secrets \"x\" is forbidden: ValidatingAdmissionPolicy 'hyperfleet-pullsecret-fence' with binding 'hyperfleet-pullsecret-fence' denied request: ...",
    };
    expect(judgeFence('mgmt-1', probes, [byFence, byFence]).status).toBe('OK');
    expect(judgeFence('mgmt-1', probes, [{ kind: 'admitted' }, byFence])).toMatchObject({
      status: 'FAIL',
      fix: { action: expect.stringContaining('management_cluster_fence') },
    });
    const rbac = {
      kind: 'refused' as const,
      status: 403,
      message: 'secrets is forbidden: User "job" cannot create resource "secrets"',
    };
    expect(judgeFence('mgmt-1', probes, [rbac, byFence]).status).toBe('SKIP');
  });

  it('the probes are Secrets only the fence refuses: not a pull secret, or a pull secret outside its namespace', () => {
    expect(
      fenceProbes().map((p) => `${p.namespace} ${String((p.secret as { type: string }).type)}`),
    ).toEqual(['default Opaque', 'kube-system kubernetes.io/dockerconfigjson']);
  });

  it('reach: a token the cluster refuses, a CA it does not match, no connection, each with its fix', () => {
    const at = 'https://34.1.2.3';
    expect(
      judgeReach('mgmt-1', at, { kind: 'http', status: 401, message: 'Unauthorized' }, JOB).fix
        ?.resource,
    ).toContain('roles/container.clusterViewer');
    expect(
      judgeReach('mgmt-1', at, { kind: 'tls', detail: 'SELF_SIGNED_CERT_IN_CHAIN' }, JOB).fix
        ?.resource,
    ).toContain('caCert');
    expect(
      judgeReach('mgmt-1', at, { kind: 'unreachable', detail: 'ECONNREFUSED' }, JOB).status,
    ).toBe('FAIL');
    expect(judgeReach('mgmt-1', at, { kind: 'answered' }, JOB).status).toBe('OK');
  });
});

describe('default-pull-secret', () => {
  const version = 'projects/platform/secrets/default/versions/3';
  it('SKIP unconfigured; OK with a fingerprint; FAIL for missing, denied or invalid, never printing the payload', () => {
    expect(judgeDefaultPullSecret(undefined, { kind: 'unconfigured' }, JOB).status).toBe('SKIP');
    expect(
      judgeDefaultPullSecret(
        version,
        { kind: 'valid', registries: 2, fingerprint: 'abc123abc123' },
        JOB,
      ).detail,
    ).toBe(`${version} is readable and a dockerconfigjson of 2 registries (sha256 abc123abc123)`);
    expect(
      judgeDefaultPullSecret(version, { kind: 'denied', message: 'denied' }, JOB).fix?.action,
    ).toContain('job_reads_default_pull_secret');
    expect(
      judgeDefaultPullSecret(version, { kind: 'missing', message: 'NOT_FOUND' }, JOB).status,
    ).toBe('FAIL');
    expect(
      judgeDefaultPullSecret(version, { kind: 'invalid', problem: 'it has no "auths" object' }, JOB)
        .status,
    ).toBe('FAIL');
  });
});

describe('gke-iam', () => {
  const judge = (permissions: string[]) =>
    judgeGkeIam('mgmt-project', { kind: 'held', permissions }, JOB, '--management-project');

  it('asks the Secret permissions and the two that tell the roles apart, nothing else', () => {
    expect(GKE_ASKED).toEqual([
      'container.secrets.get',
      'container.secrets.list',
      'container.secrets.create',
      'container.secrets.update',
      'container.secrets.delete',
      'container.clusters.create',
      'resourcemanager.projects.setIamPolicy',
    ]);
  });

  it('OK without container.secrets.*, whatever else is held (Terraform: roles/container.clusterViewer)', () => {
    expect(judge([]).status).toBe('OK');
    expect(judge(['container.clusters.create']).status).toBe('OK');
  });

  it('FAIL on Secret reads, naming the likely role and how to remove it', () => {
    const row = judge(['container.secrets.get', 'container.secrets.list']);
    expect(row.status).toBe('FAIL');
    expect(row.name).toBe('gke-iam mgmt-project');
    expect(row.fix?.problem).toContain('no admission fence can refuse');
    expect(row.fix?.resource).toContain('most likely roles/container.developer');
    expect(row.fix?.action).toContain(
      `gcloud projects remove-iam-policy-binding mgmt-project --member=serviceAccount:${JOB}`,
    );
  });

  it('FAIL on Secret writes alone too: RBAC no longer narrows them (the fence still judges them)', () => {
    const row = judge(['container.secrets.update']);
    expect(row.status).toBe('FAIL');
    expect(row.fix?.problem).toContain('the fence still judges them');
  });

  it('names the role by the markers: developer, admin/editor, owner', () => {
    expect(likelyRoles(['container.secrets.get'])).toEqual(['roles/container.developer']);
    expect(likelyRoles(['container.secrets.get', 'container.clusters.create'])).toEqual([
      'roles/container.admin',
      'roles/editor',
      'roles/owner',
    ]);
    expect(
      likelyRoles([
        'container.secrets.get',
        'container.clusters.create',
        'resourcemanager.projects.setIamPolicy',
      ]),
    ).toEqual(['roles/owner']);
  });

  it('SKIP when the project cannot be seen or Resource Manager cannot answer', () => {
    const src = 'the platform project';
    expect(judgeGkeIam('p', { kind: 'no-access', message: 'denied' }, JOB, src).status).toBe(
      'SKIP',
    );
    expect(judgeGkeIam('p', { kind: 'api-off', message: 'off' }, JOB, src).status).toBe('SKIP');
    expect(judgeGkeIam('p', { kind: 'failed', detail: 'timeout' }, JOB, src).status).toBe('SKIP');
  });
});
