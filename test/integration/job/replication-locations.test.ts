// Per-cluster data residency, end to end through the job process: a cluster spec asking for
// regions (spec.platform.gcp.secretReplication.locations) gets a user-managed secret there when the
// operator allows them (ALLOWED_REPLICATION_LOCATIONS) and the tenant project's
// gcp.resourceLocations policy does; otherwise the run fails InvalidReplication, permanent, having
// written nothing. The job reads the policy with its own token (from the metadata server, as on
// Cloud Run) from the Secret Manager emulator's Org Policy route, whose IAM is enforced: the job
// holds orgpolicy.policy.get on demo-project only, so on other-project it goes by the allow list
// alone and says so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES } from '../../../shared/job-result';
import { readySpec } from '../../helpers/hyperfleet';
import { runJob, samplePullSecret } from '../../helpers/job';
import { secretManagerClient } from '../../helpers/secret-manager';

const JOB = 'pullsecret-job@platform-project.iam.gserviceaccount.com';
const READER_ROLE = 'projects/demo-project/roles/orgPolicyReader';

describe('pull secret job: replication regions asked by the cluster spec', () => {
  let dir: string;
  let metadata: MetadataServerEmulator;
  let sm: SecretManagerEmulator;
  let hyperfleet: HyperFleetApiEmulator;
  let client: SecretManagerServiceClient;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replication-'));
    metadata = await startMetadataServer({ serviceAccount: JOB });
    sm = await startSecretManagerEmulator({
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      iam: {
        projects: { 'demo-project': '123456789012', 'other-project': '210987654321' },
        customRoles: { [READER_ROLE]: ['orgpolicy.policy.get'] },
        bindings: [
          {
            resource: 'projects/demo-project',
            role: READER_ROLE,
            members: [`serviceAccount:${JOB}`],
          },
        ],
      },
    });
    hyperfleet = await startHyperFleetApiEmulator();
    client = secretManagerClient(sm.endpoint);
  });
  afterAll(async () => {
    await client.close();
    await Promise.all([sm, hyperfleet, metadata].map((e) => e.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const askingFor = (name: string, locations: unknown, project = 'demo-project') => {
    const spec = readySpec(samplePullSecret());
    const platform = spec.platform as { gcp: Record<string, unknown> };
    const gcp = { ...platform.gcp, projectID: project, secretReplication: { locations } };
    return (
      hyperfleet.store.createCluster(
        { kind: 'Cluster', name, spec: { ...spec, platform: { ...platform, gcp } } },
        't',
      ) as { id: string }
    ).id;
  };
  /** One execution launched for the cluster's generation, with the job's identity. */
  const run = (clusterId: string, extra: Record<string, string> = {}) =>
    runJob(
      {
        METADATA_SERVER_DETECTION: undefined,
        GCE_METADATA_HOST: metadata.host,
        CLOUD_RUN_JOB: 'pullsecret-job',
        HOME: dir,
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
        ORG_POLICY_EMULATOR_HOST: new URL(sm.adminUrl).host,
        HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
        PULL_SECRET_SOURCE: 'cluster-spec',
        GCP_PROJECT_ID: 'demo-project',
        CLUSTER_ID: clusterId,
        GENERATION: String(hyperfleet.store.cluster(clusterId)!.generation),
        LAUNCH_ATTEMPT: '1',
        ALLOWED_REPLICATION_LOCATIONS: 'us-central1,us-east1',
        ...extra,
      },
      [],
      { asEmulatedTask: true },
    );
  const secretOf = async (clusterId: string, project = 'demo-project') => {
    try {
      const [secret] = await client.getSecret({
        name: `projects/${project}/secrets/hyperfleet-${clusterId}-pull-secret`,
      });
      return secret;
    } catch {
      return undefined;
    }
  };
  const replicasOf = async (clusterId: string, project?: string) =>
    (await secretOf(clusterId, project))?.replication?.userManaged?.replicas?.map(
      (r) => r.location,
    );

  it('stores the secret user-managed in the allowed regions asked for', async () => {
    const id = askingFor('resident', ['us-east1', 'us-central1']);
    const result = await run(id);
    expect(result.result).toMatchObject({ outcome: 'succeeded', reason: 'PullSecretProvisioned' });
    expect(await replicasOf(id)).toEqual(['us-east1', 'us-central1']);
    // A later run (a resync: the next attempt) finds the secret where it was asked to be.
    expect((await run(id, { LAUNCH_ATTEMPT: '2' })).result.outcome).toBe('succeeded');
  });

  it('keeps the fleet replication for a cluster that asks for nothing', async () => {
    const spec = readySpec(samplePullSecret());
    const id = (
      hyperfleet.store.createCluster({ kind: 'Cluster', name: 'no-ask', spec }, 't') as {
        id: string;
      }
    ).id;
    expect((await run(id)).result.outcome).toBe('succeeded');
    expect((await secretOf(id))?.replication?.automatic).toBeTruthy();
  });

  it('refuses a region the operator does not allow: InvalidReplication naming the allowed list, nothing written', async () => {
    const id = askingFor('abroad', ['europe-west4']);
    const result = await run(id);
    expect(result.code).toBe(EXIT_CODES.permanent);
    expect(result.result).toMatchObject({
      outcome: 'failed',
      reason: 'InvalidReplication',
      failure_kind: 'permanent',
    });
    expect(result.result.message).toMatch(
      /europe-west4 is not allowed\. Allowed locations: us-central1, us-east1\./,
    );
    expect(await secretOf(id)).toBeUndefined();
    // With no allow list at all, every request is refused, saying the operator must allow it.
    const unset = await run(id, { ALLOWED_REPLICATION_LOCATIONS: '' });
    expect(unset.result.message).toMatch(/the operator must list the regions clusters may choose/);
  });

  it('refuses hostile values in the spec before any request is made', async () => {
    const id = askingFor('hostile', ['us-central1/../../secrets/other', 'US-EAST1']);
    const before = sm.requests.list().length;
    const result = await run(id);
    expect(result.result.reason).toBe('InvalidReplication');
    expect(result.result.message).toMatch(
      /locations\[0\]: "us-central1\/\.\.\/\.\.\/secrets\/other" is not a Google Cloud region id.*locations\[1\]: "US-EAST1" must be lowercase/,
    );
    expect(
      sm.requests
        .list()
        .slice(before)
        .some((r) => r.target.includes('..')),
    ).toBe(false);
  });

  it("refuses a region the tenant's gcp.resourceLocations policy does not allow", async () => {
    sm.orgPolicies.set('demo-project', 'gcp.resourceLocations', {
      rules: [{ values: { allowedValues: ['in:us-east1-locations'] } }],
    });
    try {
      const id = askingFor('policy-bound', ['us-central1']);
      const result = await run(id);
      expect(result.result.reason).toBe('InvalidReplication');
      expect(result.result.message).toMatch(
        /organization policy gcp\.resourceLocations of project demo-project does not allow us-central1 \(allowedValues in:us-east1-locations\)/,
      );
      expect(await secretOf(id)).toBeUndefined();
    } finally {
      sm.orgPolicies.set('demo-project', 'gcp.resourceLocations', undefined);
    }
  });

  it('goes by the allow list alone where it may not read the policy, and says so', async () => {
    const id = askingFor('unreadable-policy', ['us-east1'], 'other-project');
    const result = await run(id, { GCP_PROJECT_ID: 'other-project' });
    expect(result.result.outcome).toBe('succeeded');
    expect(await replicasOf(id, 'other-project')).toEqual(['us-east1']);
    const warning = result.lines.find((line) =>
      String(line.message).startsWith('Could not read the organization policy'),
    );
    expect(String(warning?.message)).toMatch(
      /gcp\.resourceLocations of project other-project \(PERMISSION_DENIED: Permission 'orgpolicy\.policy\.get' denied.*going by ALLOWED_REPLICATION_LOCATIONS alone/,
    );
  });

  it('refuses to move an existing secret: Secret Manager cannot change its replication', async () => {
    const id = askingFor('moving', ['us-central1']);
    expect((await run(id)).result.outcome).toBe('succeeded');
    const versions = async () =>
      (await client.listSecretVersions({ parent: (await secretOf(id))!.name! }))[0].length;
    const before = await versions();
    hyperfleet.store.patchCluster(
      id,
      { spec: { platform: { gcp: { secretReplication: { locations: ['us-east1'] } } } } },
      't',
    );
    const result = await run(id);
    expect(result.result).toMatchObject({ outcome: 'failed', reason: 'InvalidReplication' });
    expect(result.result.message).toMatch(
      /already exists with replicas in us-central1, and Secret Manager cannot change the replication of an existing secret/,
    );
    expect(await replicasOf(id)).toEqual(['us-central1']);
    expect(await versions()).toBe(before);
  });

  it("serves the Org Policy route only to an authenticated caller, as Google's API", async () => {
    const host = new URL(sm.adminUrl).host;
    const answer = await fetch(
      `http://${host}/v2/projects/demo-project/policies/gcp.resourceLocations:getEffectivePolicy`,
    );
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });
});
