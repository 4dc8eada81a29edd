/**
 * The chaos run (issue 38, "Reach"): on the whole local stack with two management clusters, a
 * seeded schedule of ~8-10 clusters (created, their pull secret changed, moved between mgmt-1 and
 * mgmt-2, deleted during their first apply or after converging) runs while faults are placed at
 * random on every store and API the job and the adapter call: transient gRPC codes on Secret
 * Manager, 5xx and 409 on the Kubernetes Secret writes of both management clusters, 5xx and
 * timeouts on the HyperFleet API, and lost responses (the effect happens, the caller sees an
 * error) on CreateSecret, UpdateSecret, AddSecretVersion and the Kubernetes POST, PATCH and DELETE.
 * Each fault is scoped to one cluster (its secret, its namespace) and fires a few times at most,
 * so the run's retries must converge it: the point is where faults land, not permanent failure.
 *
 * It proves that the whole system still converges with 0 duplicate effects and 0 leaks:
 * - every live cluster is PullsecretSuccessful at its latest generation, its Kubernetes Secret is
 *   where placement says now and nowhere else (not on the other management cluster), with the
 *   latest bytes, and Secret Manager's `current` alias serves those bytes from the one version
 *   left enabled (the Secret's gcp-secret-path names `current`, its gcp-secret-version that version);
 * - every deleted cluster is gone from the API, has no Kubernetes Secret on either management
 *   cluster and no version of its secret that is not destroyed (a tombstone, or nothing);
 * - the dead-letter topics are empty and no pull secret appears in any log, status or message.
 *
 * The choices (ids, which faults, which actions and when) come from a seeded PRNG: CHAOS_SEED
 * replays a run's choices (the interleaving is the machine's); CI runs the fixed default seed.
 * The plan, which faults fired and, for any cluster that ends wrong, its executions and its
 * Secret Manager and Kubernetes requests in order are written to .test-work/jest-console.log.
 */
import { spreadOver } from '../../emulators/pullsecret/hyperfleet/simulated-adapters';
import { MANAGEMENT_CLUSTERS } from '../../emulators/pullsecret/stack/layout';
import type { TakenFault } from '../../emulators/common/fault-injector';
import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import {
  API_TIMEOUT_MS,
  describePlan,
  planRun,
  secretPath,
  seedFromEnv,
  sleep,
  takenBy,
  type ClusterPlan,
  type FaultComponent,
} from '../helpers/chaos-plan';
import { scanForCanaries } from '../helpers/secret-scan';
import { leftAfterDelete } from '../helpers/secret-manager';
import {
  CUSTOMER_PROJECT,
  startTestStack,
  type KubeRequest,
  type TestStack,
} from '../helpers/stack';

const SEED = seedFromEnv(process.env.CHAOS_SEED);

/** What a live cluster must look like at the end, as the schedule left it. */
interface Expected {
  generation: number;
  managementCluster: string;
  pullSecret: string;
}

describe(`the chaos run (seed ${SEED}; CHAOS_SEED=N replays another)`, () => {
  const plans = planRun(SEED);
  let stack: TestStack;
  const canaries: Canary[] = [];
  const expected = new Map<string, Expected>();
  const deleted: ClusterPlan[] = [];

  beforeAll(async () => {
    console.log(`chaos seed ${SEED}:\n${plans.map(describePlan).join('\n')}`);
    // A short API timeout so that a held request is a timed-out one within the run.
    const api = { HYPERFLEET_API_TIMEOUT: `${API_TIMEOUT_MS}ms` };
    stack = await startTestStack({ adapterEnv: api, reporterEnv: api, jobEnv: api });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  /** Every pull secret a cluster had, in order: the bytes found are named by their generation. */
  const pullSecrets = new Map<string, string[]>();
  const newCanary = (id: string, label: string) => {
    const canary = canaryPullSecret(label);
    canaries.push(canary);
    pullSecrets.set(id, [...(pullSecrets.get(id) ?? []), canary.text]);
    return canary.text;
  };
  const whose = (id: string, text: string, state: Expected) => {
    if (text === state.pullSecret) return 'latest';
    const index = (pullSecrets.get(id) ?? []).indexOf(text);
    return index >= 0
      ? `pull secret #${index + 1} (not the latest)`
      : text
        ? 'unknown bytes'
        : 'none';
  };
  const tagOf = (id: string) => {
    const plan = plans.find((p) => p.id === id)!;
    return `#${plan.index} ${plan.role} ${id}`;
  };

  /**
   * For a report on failure: each differing cluster's Secret Manager calls, Kubernetes requests
   * and executions, in order, from the emulators' request logs (in the console log of the run).
   */
  const explainDifferences = async (
    found: Record<string, unknown>[],
    wanted: Record<string, unknown>[],
  ) => {
    const differing = found.filter((f, i) => JSON.stringify(f) !== JSON.stringify(wanted[i]));
    if (differing.length === 0) return;
    const sm = await stack.requests('secret-manager');
    const kube = await stack.requests('kube-apiserver');
    const executions = await stack.executions();
    for (const f of differing) {
      const id = String(f.cluster).split(' ').pop()!;
      const lines = [
        ...sm
          .filter((r) => r.target.startsWith(secretPath(id)))
          .map(
            (r) =>
              `${r.time} sm   ${r.method} ${r.target.slice(secretPath(id).length) || '.'} ${r.outcome}`,
          ),
        ...(kube as KubeRequest[])
          .filter((r) => r.target.includes(`clusters-${id}/secrets`))
          .map(
            (r) =>
              `${r.time} kube ${r.managementCluster} ${r.method}${r.dryRun ? ' (dry run)' : ''} ${r.target} ${r.outcome}`,
          ),
      ].sort();
      const runs = executions
        .filter((e) => e.env.CLUSTER_ID === id)
        .map(
          (e) =>
            `${e.name.split('/').pop()} generation ${e.env.GENERATION} ${e.env.OPERATION} attempt ${e.env.LAUNCH_ATTEMPT}${e.done ? '' : ' (running)'}`,
        );
      console.log(
        `chaos seed ${SEED}: ${String(f.cluster)} differs: ${JSON.stringify(f)}\n` +
          `${describePlan(plans.find((p) => p.id === id)!)}\nexecutions: ${runs.join('; ')}\n${lines.join('\n')}`,
      );
    }
  };
  const generationOf = async (id: string) => (await stack.api.getCluster(id)).generation;

  /** The faults each emulator handed out; Kubernetes' from both management clusters. */
  const takenEverywhere = async (): Promise<Record<FaultComponent, TakenFault[]>> => {
    const kube: TakenFault[] = [];
    for (const reader of stack.kubes.values()) {
      const answer = await reader.admin('GET', '/faults');
      kube.push(...(JSON.parse(answer.body) as { taken: TakenFault[] }).taken);
    }
    return {
      'secret-manager': await stack.faultsTaken('secret-manager'),
      'hyperfleet-api': await stack.faultsTaken('hyperfleet-api'),
      'kube-apiserver': kube,
    };
  };

  /** One cluster's schedule, from its creation to its last action. */
  const play = async (plan: ClusterPlan) => {
    const { id, name } = plan;
    await sleep(plan.startAfterMs);
    const state: Expected = {
      generation: 1,
      managementCluster: spreadOver(MANAGEMENT_CLUSTERS, id),
      pullSecret: newCanary(id, name),
    };
    await stack.api.createCluster({
      name,
      id,
      spec: demoClusterSpec(state.pullSecret, CUSTOMER_PROJECT),
    });
    if (plan.role === 'delete-early') {
      await deleteDuringFirstApply(plan);
      return;
    }
    for (const [i, op] of plan.ops.entries()) {
      if (op.when === 'converged') await stack.converged(id, state.generation, 90_000);
      else await sleep(op.when.afterMs);
      if (op.kind === 'update') {
        state.pullSecret = newCanary(id, `${name}-${i + 1}`);
        const patched = await stack.api.patchCluster(id, {
          spec: { pullSecret: { data: state.pullSecret } },
        });
        state.generation = patched.generation;
      } else {
        const to = MANAGEMENT_CLUSTERS.find((m) => m !== state.managementCluster)!;
        state.generation = await stack.move(id, { managementCluster: to });
        state.managementCluster = to;
      }
    }
    if (plan.role === 'delete-late') {
      await stack.converged(id, state.generation, 90_000);
      await stack.api.deleteCluster(id);
      deleted.push(plan);
      return;
    }
    expected.set(id, state);
  };

  /** Deletes the cluster while its first apply is under way (as far as the moment can be chosen). */
  const deleteDuringFirstApply = async (plan: ClusterPlan) => {
    const { id } = plan;
    const started = async () => {
      if (plan.earlyDelete === 'at-launch')
        return (await stack.executionsFor(id)).length > 0 || undefined;
      if (plan.earlyDelete === 'at-claim')
        return (
          (await stack.requests('secret-manager')).some((r) => r.target === secretPath(id)) ||
          undefined
        );
      return true;
    };
    // The moment is a choice, not an assertion: a run faster or slower than expected still deletes.
    await stack.waitFor(`${id}'s first apply under way`, started, 20_000).catch(() => undefined);
    await stack.api.deleteCluster(id);
    deleted.push(plan);
  };

  it('runs the schedule under faults on both management clusters, and every live cluster converges at its latest generation', async () => {
    for (const plan of plans)
      for (const fault of plan.faults) await stack.fault(fault.component, fault.rule);
    await Promise.all(plans.map(play));
    await Promise.all(
      [...expected].map(([id, state]) => stack.converged(id, state.generation, 90_000)),
    );
    for (const [id, state] of expected) expect(await generationOf(id)).toBe(state.generation);
    await stack.waitFor(
      'every deleted cluster gone from the HyperFleet API',
      async () => {
        for (const plan of deleted) if (await stack.cluster(plan.id)) return undefined;
        return true;
      },
      90_000,
    );
    // Every execution has ended: nothing still in flight can change what is asserted below.
    await stack.waitFor(
      'every execution ended',
      async () => (await stack.executions()).every((e) => e.done) || undefined,
      60_000,
    );
    // Which placed faults fired, and how often (a fault whose call never came stays unfired).
    const taken = await takenEverywhere();
    const fired = plans.flatMap((plan) =>
      plan.faults.map((fault) => ({
        plan,
        fault,
        times: taken[fault.component].filter((t) => takenBy(t, fault.rule)).length,
      })),
    );
    const lostFired = fired.filter((f) => f.times > 0 && f.fault.rule.after === true);
    console.log(
      `chaos seed ${SEED}: ${fired.filter((f) => f.times > 0).length} of ${fired.length} faults fired ` +
        `(${lostFired.length} lost responses), ${(await stack.executions()).length} executions; unfired: ` +
        fired
          .filter((f) => f.times === 0)
          .map((f) => `#${f.plan.index} ${f.fault.label}`)
          .join('; '),
    );
    expect(lostFired.length).toBeGreaterThan(0);
    // What is read below is the end state, not a leftover fault's answer to this test.
    await stack.clearFaults('secret-manager');
    await stack.clearFaults('kube-apiserver');
    await stack.clearFaults('hyperfleet-api');
  }, 150_000);

  it('each live cluster: its Secret only where placement says now, with the latest bytes; `current` serves them from the one enabled version', async () => {
    expect(expected.size).toBeGreaterThan(0);
    const found: Record<string, unknown>[] = [];
    const wanted: Record<string, unknown>[] = [];
    for (const [id, state] of expected) {
      const namespace = `clusters-${id}`;
      const secret = (await stack.secretIn(state.managementCluster, namespace, id)) as
        | { data?: Record<string, string>; metadata: { annotations?: Record<string, string> } }
        | undefined;
      const published = `${secretPath(id)}/versions/current`;
      const current = await stack.sm
        .accessSecretVersion({ name: published })
        .then(([version]) => version)
        .catch((error: Error) => ({ name: error.message, payload: undefined }));
      const bytes = (data: Buffer | undefined) => whose(id, data?.toString() ?? '', state);
      found.push({
        cluster: tagOf(id),
        place: await stack.placeOf(id),
        // 0 duplicates in Kubernetes: ours at the place, none on the other management cluster.
        kubernetesSecrets: await stack.ourSecrets(id),
        kubernetesBytes: bytes(Buffer.from(secret?.data?.['.dockerconfigjson'] ?? '', 'base64')),
        gcpSecretPath: secret?.metadata.annotations?.['hyperfleet.io/gcp-secret-path'],
        gcpSecretVersion: secret?.metadata.annotations?.['hyperfleet.io/gcp-secret-version'],
        currentBytes: bytes(current.payload?.data ? Buffer.from(current.payload.data) : undefined),
        // 0 duplicates in Secret Manager: one version left, the one `current` names.
        versionsNotDestroyed: (await stack.versions(id)).filter((v) => !v.endsWith(':DESTROYED')),
      });
      wanted.push({
        cluster: tagOf(id),
        place: { managementCluster: state.managementCluster, namespace },
        kubernetesSecrets: [`${state.managementCluster} ${namespace}/${id}-pull-secret`],
        kubernetesBytes: 'latest',
        // What readers read, and the version `current` names (the bytes' provenance).
        gcpSecretPath: published,
        gcpSecretVersion: current.name?.split('/').pop(),
        currentBytes: 'latest',
        versionsNotDestroyed: [`${current.name?.split('/').pop()}:ENABLED`],
      });
    }
    await explainDifferences(found, wanted);
    expect(found).toEqual(wanted);
  });

  it('each deleted cluster: no Kubernetes Secret on either management cluster, no version of its secret left', async () => {
    expect(deleted.length).toBe(plans.filter((p) => p.role !== 'live').length);
    const found: Record<string, unknown>[] = [];
    const wanted: Record<string, unknown>[] = [];
    for (const { id } of deleted) {
      const byName: string[] = [];
      for (const managementCluster of MANAGEMENT_CLUSTERS)
        if (await stack.secretIn(managementCluster, `clusters-${id}`, id))
          byName.push(managementCluster);
      const versions = await stack.versions(id).catch((error: { code?: number }) => {
        if (error.code === 5) return [];
        throw error;
      });
      // What is left is the delete's tombstone (its claim, its ttl), or nothing.
      const left = await leftAfterDelete(stack.sm, secretPath(id));
      found.push({
        cluster: tagOf(id),
        kubernetesSecrets: await stack.ourSecrets(id),
        kubernetesSecretsByName: byName,
        versionsNotDestroyed: versions.filter((v) => !v.endsWith(':DESTROYED')),
        secretManager: left,
      });
      wanted.push({
        cluster: tagOf(id),
        kubernetesSecrets: [],
        kubernetesSecretsByName: [],
        versionsNotDestroyed: [],
        secretManager: left === 'absent' ? 'absent' : 'tombstone',
      });
    }
    await explainDifferences(found, wanted);
    expect(found).toEqual(wanted);
  });

  it('leaves the dead-letter topics empty and no pull secret in any log, status or message', async () => {
    expect(await stack.deadLetters()).toBe(0);
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
