// Our status `data` on success is read by another adapter (HyperShift: the HostedCluster's
// namespace and spec.pullSecret.name; docs/status-contract.md). These tests pin its keys and types:
// changing them breaks that adapter, so a change here must be a deliberate contract change.
import * as z from 'zod';
import type { Provisioned, StatusOutcome } from '../../../shared/status/outcome';
import { buildStatus } from '../../../shared/status/status-builder';
import { planFromJobResult } from '../../../functions/reporter/report/report-outcomes';
import type { JobResult } from '../../../shared/job-result';
import { tableAfter } from '../../helpers/docs';

const now = new Date('2026-11-23T10:00:00Z');
const execution = 'projects/p/locations/us-central1/jobs/pullsecret-job/executions/e-1';
const succeeded = (
  kubernetesSecret?: {
    managementCluster?: string;
    namespace: string;
    name: string;
    previousLayoutNamespace?: string;
  },
  source: Partial<Provisioned> = { secretVersion: '3', pullSecretSource: 'cluster-spec' },
): StatusOutcome => ({
  kind: 'succeeded',
  execution,
  provisioned: {
    secretPath: 'projects/p/secrets/hyperfleet-cls-1-pull-secret',
    ...source,
    ...(kubernetesSecret ? { kubernetesSecret } : {}),
    sha256Prefix: 'abcdef012345',
  },
  timing: { startedAt: '2026-11-23T09:59:00Z', completedAt: '2026-11-23T09:59:30Z' },
});

/** The contract, exactly: no key more, no key less, each of its type. */
const successData = z.strictObject({
  execution: z.string(),
  operation: z.literal('apply'),
  secret_path: z.string(),
  secret_version: z.string(),
  pull_secret_source: z.enum(['cluster-spec', 'platform-default', 'env']),
  /** With the platform default: the number of its version the pull secret came from. */
  default_version: z
    .string()
    .regex(/^[1-9][0-9]*$/)
    .optional(),
  pull_secret_sha256_prefix: z.string(),
  namespace: z.string(),
  pull_secret_name: z.string(),
  management_cluster: z.string(),
  kubernetes_secret: z.strictObject({
    management_cluster: z.string(),
    namespace: z.string(),
    name: z.string(),
  }),
  /** Only while a namespace layout migration keeps a copy in the previous layout. */
  previous_layout_namespace: z.string().optional(),
});

describe('status data contract (what the HyperShift adapter reads)', () => {
  it('has exactly these keys and types on success with a Kubernetes Secret', () => {
    const body = buildStatus(
      succeeded({ managementCluster: 'mgmt-2', namespace: 'ns-b', name: 'cls-1-pull-secret' }),
      3,
      now,
    );
    expect(successData.parse(body.data)).toEqual({
      execution,
      operation: 'apply',
      secret_path: 'projects/p/secrets/hyperfleet-cls-1-pull-secret',
      secret_version: '3',
      pull_secret_source: 'cluster-spec',
      pull_secret_sha256_prefix: 'abcdef012345',
      namespace: 'ns-b',
      pull_secret_name: 'cls-1-pull-secret',
      management_cluster: 'mgmt-2',
      kubernetes_secret: {
        management_cluster: 'mgmt-2',
        namespace: 'ns-b',
        name: 'cls-1-pull-secret',
      },
    });
    expect(Object.keys(body.data ?? {}).sort()).toEqual(
      Object.keys(successData.shape)
        // Optional keys: a layout migration's, and the default's version (an own pull secret here).
        .filter((key) => key !== 'previous_layout_namespace' && key !== 'default_version')
        .sort(),
    );
  });

  it('says where a namespace layout migration kept a copy, for the adapter (HyperShift reads namespace)', () => {
    const body = buildStatus(
      succeeded({
        managementCluster: 'mgmt-2',
        namespace: 'clusters',
        name: 'cls-1-pull-secret',
        previousLayoutNamespace: 'clusters-cls-1',
      }),
      3,
      now,
    );
    expect(successData.parse(body.data)).toMatchObject({
      namespace: 'clusters',
      previous_layout_namespace: 'clusters-cls-1',
      kubernetes_secret: { namespace: 'clusters', name: 'cls-1-pull-secret' },
    });
  });

  it('says the platform default is in use, without secret_version when it was not copied', () => {
    const place = { managementCluster: 'mgmt-2', namespace: 'ns-b', name: 'cls-1-pull-secret' };
    const kept = buildStatus(
      succeeded(place, { pullSecretSource: 'platform-default', defaultVersion: '7' }),
      3,
      now,
    );
    expect(successData.omit({ secret_version: true }).parse(kept.data)).toMatchObject({
      pull_secret_source: 'platform-default',
      default_version: '7',
      namespace: 'ns-b',
      pull_secret_name: 'cls-1-pull-secret',
    });
    expect(kept.data).not.toHaveProperty('secret_version');
    const copied = buildStatus(
      succeeded(place, { pullSecretSource: 'platform-default', secretVersion: '3' }),
      3,
      now,
    );
    expect(successData.parse(copied.data)).toMatchObject({
      pull_secret_source: 'platform-default',
      secret_version: '3',
    });
  });

  it('names the management cluster in the Available message', () => {
    const body = buildStatus(
      succeeded({ managementCluster: 'mgmt-2', namespace: 'ns-b', name: 'cls-1-pull-secret' }),
      3,
      now,
    );
    const available = body.conditions.find((c) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'True', reason: 'PullSecretProvisioned' });
    expect(available?.message).toBe(
      'Pull secret stored in projects/p/secrets/hyperfleet-cls-1-pull-secret/versions/3 and pushed to Secret ns-b/cls-1-pull-secret on management cluster mgmt-2',
    );
  });

  it('sets no Kubernetes keys when no Kubernetes Secret was written (SKIP_KUBERNETES)', () => {
    const data = buildStatus(succeeded(), 3, now).data ?? {};
    for (const key of ['namespace', 'pull_secret_name', 'management_cluster', 'kubernetes_secret'])
      expect(data).not.toHaveProperty(key);
  });

  it("carries the job result's management cluster through the reporter", () => {
    const result: JobResult = {
      outcome: 'succeeded',
      operation: 'apply',
      dry_run: false,
      cluster_id: 'cls-1',
      generation: 3,
      execution: 'e-1',
      phases: ['secret-manager', 'kubernetes'],
      reason: 'PullSecretProvisioned',
      message: 'done',
      pull_secret_sha256_prefix: 'abcdef012345',
      pull_secret_source: 'cluster-spec',
      secret_manager: {
        secret_path: 'projects/p/secrets/hyperfleet-cls-1-pull-secret',
        secret: 'reused',
        version: 'added',
        version_name: 'projects/p/secrets/hyperfleet-cls-1-pull-secret/versions/3',
        verified: true,
        destroyed_versions: [],
      },
      kubernetes: {
        management_cluster: 'mgmt-2',
        namespace: 'ns-b',
        name: 'cls-1-pull-secret',
        outcome: 'created',
      },
      durations_ms: {},
      started_at: '2026-11-23T09:59:00Z',
      finished_at: '2026-11-23T09:59:30Z',
    };
    const plan = planFromJobResult(result, 'projects/p/locations/us-central1/jobs/pullsecret-job');
    if (!('outcome' in plan)) throw new Error(`expected a report, got ${plan.skip}`);
    expect(successData.parse(buildStatus(plan.outcome, 3, now).data)).toMatchObject({
      management_cluster: 'mgmt-2',
      namespace: 'ns-b',
      pull_secret_name: 'cls-1-pull-secret',
      kubernetes_secret: {
        management_cluster: 'mgmt-2',
        namespace: 'ns-b',
        name: 'cls-1-pull-secret',
      },
    });
  });
});

describe('docs/status-contract.md', () => {
  it('documents exactly the keys of the contract', () => {
    const rows = tableAfter(
      'docs/status-contract.md',
      "After a successful apply that wrote the Kubernetes Secret, `pullsecret`'s `data` holds:",
    );
    const documented = rows.flatMap(([fields = '']) =>
      [...fields.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!),
    );
    expect(documented.sort()).toEqual(Object.keys(successData.shape).sort());
  });
});
