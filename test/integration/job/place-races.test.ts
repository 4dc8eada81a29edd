// Lagging generations racing newer ones across two management clusters, as real job processes:
// the emulators' delay faults hold one execution's call while a newer execution runs to the end.
import { EXIT_CODES } from '../../../shared/job-result';
import { annotationsWithClaim } from '../../../shared/pull-secret/claim';
import { samplePullSecret } from '../../helpers/job';
import { coreApi } from '../../helpers/kubernetes';
import {
  CLUSTER,
  NAME,
  SECRET,
  place,
  startTwoClusters,
  until,
  type TwoClusters,
} from '../../helpers/two-management-clusters';

const GENERATION_ANNOTATION = 'hyperfleet.io/generation';
// Long enough for a whole newer execution (a node process) to run while one call is held.
const HOLD_MS = 6_000;

describe('place races between generations (two Kubernetes emulators, real job processes)', () => {
  let t: TwoClusters;
  beforeAll(async () => {
    t = await startTwoClusters();
  });
  afterAll(async () => {
    await t.stop();
  });
  beforeEach(async () => {
    await t.reset();
  });

  it('a lagging generation moving B→A never removes the Secret a newer generation moved back to B', async () => {
    expect((await t.run(1, 'mgmt-2', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Generation 2 moves to mgmt-1; its read of the old place (a dry-run test patch) on mgmt-2 is held...
    t.mgmt2.faults.add({
      match: `PATCH /api/v1/namespaces/clusters-cls-1/secrets/${NAME}`,
      delayMs: HOLD_MS,
    });
    const lagging = t.run(2, 'mgmt-1', 'clusters-cls-1');
    await until('generation 2 to read its old place', () => t.mgmt2.faults.pending() === 0);
    // ...while generation 3 moves back to mgmt-2 and finishes: its Secret at B is the current one.
    const newer = await t.run(3, 'mgmt-2', 'clusters-cls-1');
    expect(newer.code).toBe(EXIT_CODES.success);
    expect(newer.result.kubernetes).toMatchObject({
      management_cluster: 'mgmt-2',
      namespace: 'clusters-cls-1',
    });
    const late = await lagging;
    expect(late.code).toBe(EXIT_CODES.success);
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });

    expect(await t.everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    expect(await t.places()).toEqual([place('mgmt-2', 'clusters-cls-1')]);
    const current = await t.secretIn(t.mgmt2, 'clusters-cls-1');
    expect(current?.metadata?.annotations?.[GENERATION_ANNOTATION]).toBe('3');
  }, 60_000);

  it('a conditional delete that gets 409 (re-stamped after its read) reads again and leaves the newer Secret', async () => {
    expect((await t.run(1, 'mgmt-2', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Generation 2 moves to mgmt-1; it reads its old place, then its DELETE is held...
    t.mgmt2.faults.add({
      match: `DELETE /api/v1/namespaces/clusters-cls-1/secrets/${NAME}`,
      delayMs: HOLD_MS,
    });
    const lagging = t.run(2, 'mgmt-1', 'clusters-cls-1');
    await until('generation 2 to send its delete', () => t.mgmt2.faults.pending() === 0);
    // ...while generation 3 moves back to mgmt-2 and re-stamps the Secret there (2 overtaken).
    expect((await t.run(3, 'mgmt-2', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    const late = await lagging;
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    const deletes = t.mgmt2.requests.list().filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.outcome)).toEqual([409]);
    expect(await t.everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    const current = await t.secretIn(t.mgmt2, 'clusters-cls-1');
    expect(current?.metadata?.annotations?.[GENERATION_ANNOTATION]).toBe('3');
  }, 60_000);

  it('a lagging generation never overwrites the Secret a newer generation confirmed (no lost write)', async () => {
    const rotated = samplePullSecret('rotated-user', 'rotated-password');
    expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Generation 2 writes a rotated pull secret; its PATCH is held...
    t.mgmt1.faults.add({
      match: `PATCH /api/v1/namespaces/clusters-cls-1/secrets/${NAME}`,
      delayMs: HOLD_MS,
    });
    const lagging = t.run(2, 'mgmt-1', 'clusters-cls-1', { PULL_SECRET_DATA: rotated });
    await until('generation 2 to send its write', () => t.mgmt1.faults.pending() === 0);
    // ...while generation 3 (the rotation reverted) finds the bytes it wants already there.
    const newer = await t.run(3, 'mgmt-1', 'clusters-cls-1');
    expect(newer.code).toBe(EXIT_CODES.success);
    const late = await lagging;
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });

    const current = await t.secretIn(t.mgmt1, 'clusters-cls-1');
    expect(Buffer.from(current?.data?.['.dockerconfigjson'] ?? '', 'base64').toString()).toBe(
      samplePullSecret(),
    );
    expect(current?.metadata?.annotations?.[GENERATION_ANNOTATION]).toBe('3');
    expect(await t.places()).toEqual([place('mgmt-1', 'clusters-cls-1')]);
  }, 60_000);

  it('a Secret a lagging generation writes after the newer one removed that place stays recorded, and is removed', async () => {
    expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Generation 2 moves to mgmt-2/clusters-cls-1; its create is held (sent, not yet performed)...
    t.mgmt2.faults.add({
      match: `POST /api/v1/namespaces/clusters-cls-1/secrets`,
      delayMs: HOLD_MS,
    });
    const lagging = t.run(2, 'mgmt-2', 'clusters-cls-1');
    await until('generation 2 to send its create', () => t.mgmt2.faults.pending() === 0);
    // ...while generation 3 moves back to mgmt-1: it finds nothing at clusters-cls-1 yet, and its write
    // forgetting clusters-cls-1 is held past generation 2's create (the claim write goes through first).
    t.sm.faults.add({ match: 'UpdateSecret', target: SECRET, delayMs: 0 });
    t.sm.faults.add({ match: 'UpdateSecret', target: SECRET, delayMs: HOLD_MS });
    const newer = t.run(3, 'mgmt-1', 'clusters-cls-1');
    const late = await lagging;
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });
    const current = await newer;
    expect(current.code).toBe(EXIT_CODES.success);

    // Generation 2's late Secret at clusters-cls-1 is neither left behind nor left unrecorded.
    expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
    expect(await t.places()).toEqual([place('mgmt-1', 'clusters-cls-1')]);
  }, 60_000);

  // The one guard only the claim re-check after the write gives: a relaunch at the SAME generation
  // (the adapter presumed attempt 1 lost) that moved the cluster is invisible to the cluster check
  // (generation unchanged, not deleting); only the claim, taken over by attempt 2, tells attempt 1
  // that its late Secret may be at a place attempt 2 already cleaned and forgot.
  it('a late write by attempt 1 after a same-generation relaunch moved the cluster is recorded again, and the next run removes it', async () => {
    // Attempt 1 of generation 1 writes mgmt-1; its create is held (sent, not yet performed)...
    t.mgmt1.faults.add({
      match: `POST /api/v1/namespaces/clusters-cls-1/secrets`,
      exact: true,
      hold: true,
    });
    const lagging = t.run(1, 'mgmt-1', 'clusters-cls-1');
    await until('attempt 1 to send its create', () => t.mgmt1.faults.held() === 1);
    // ...while attempt 2 (same generation, placement now mgmt-2) takes the claim over, writes
    // mgmt-2, finds nothing of ours at mgmt-1 yet, and forgets that place.
    const relaunch = await t.run(1, 'mgmt-2', 'clusters-cls-1', { LAUNCH_ATTEMPT: '2' });
    expect(relaunch.code).toBe(EXIT_CODES.success);
    expect(await t.places()).toEqual([place('mgmt-2', 'clusters-cls-1')]);
    t.mgmt1.faults.release();
    const late = await lagging;
    expect(late.result).toMatchObject({ outcome: 'stood-aside', reason: 'SupersededExecution' });

    // Attempt 1's Secret landed at mgmt-1 after the cleanup: it is recorded, not lost...
    expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1', 'mgmt-2/clusters-cls-1']);
    expect(await t.places()).toEqual(
      expect.arrayContaining([
        place('mgmt-1', 'clusters-cls-1'),
        place('mgmt-2', 'clusters-cls-1'),
      ]),
    );
    // ...so the next run (a resync) removes it.
    const next = await t.run(1, 'mgmt-2', 'clusters-cls-1', { LAUNCH_ATTEMPT: '3' });
    expect(next.code).toBe(EXIT_CODES.success);
    expect(await t.everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
    expect(await t.places()).toEqual([place('mgmt-2', 'clusters-cls-1')]);
  }, 60_000);

  it('a create that lands with its answer lost after a newer generation forgot that place is recorded again', async () => {
    expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    // Generation 2 moves to mgmt-2/clusters-cls-1; its create is held, then performed, its answer lost...
    t.mgmt2.faults.add({
      match: `POST /api/v1/namespaces/clusters-cls-1/secrets`,
      delayMs: HOLD_MS,
      status: 503,
      after: true,
    });
    // Its retries fail too (not performed), so the write throws after it landed.
    t.mgmt2.faults.add({
      match: `POST /api/v1/namespaces/clusters-cls-1/secrets`,
      status: 503,
      count: 20,
    });
    const lagging = t.run(2, 'mgmt-2', 'clusters-cls-1');
    await until('generation 2 to send its create', () => t.mgmt2.faults.pending() === 20);
    // ...while generation 3 stays on mgmt-1: it finds nothing at clusters-cls-1 and forgets that place.
    expect((await t.run(3, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
    expect(await t.places()).toEqual([place('mgmt-1', 'clusters-cls-1')]);
    const late = await lagging;
    t.mgmt2.faults.clear();
    expect(late.code).toBe(EXIT_CODES.transient);
    // The Secret that landed is recorded, so the next execution removes it.
    expect(await t.places()).toEqual([
      place('mgmt-1', 'clusters-cls-1'),
      place('mgmt-2', 'clusters-cls-1'),
    ]);
    const next = await t.run(4, 'mgmt-1', 'clusters-cls-1');
    expect(next.result.cleaned_placements).toEqual([
      { management_cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: NAME, outcome: 'deleted' },
    ]);
    expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
  }, 60_000);

  it('unchanged bytes cost a write whenever the stored stamp is older than mine, and only then', async () => {
    const writes = () =>
      t.mgmt1.requests
        .list()
        .filter((r) => r.method !== 'GET' && !r.dryRun)
        .map((r) => r.method);
    expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).result.kubernetes?.outcome).toBe('created');
    // Generations 2 and 3 find stamp 1, then 2: older than theirs, so each stamps its own (an
    // older execution still running is stopped by it, whatever it wrote or did not write).
    for (const generation of [2, 3])
      expect((await t.run(generation, 'mgmt-1', 'clusters-cls-1')).result.kubernetes?.outcome).toBe(
        'updated',
      );
    // A relaunch of generation 3 finds its own stamp: nothing to write again.
    const relaunch = await t.run(3, 'mgmt-1', 'clusters-cls-1', { LAUNCH_ATTEMPT: '2' });
    expect(relaunch.result.kubernetes?.outcome).toBe('unchanged');
    expect(writes()).toEqual(['POST', 'PATCH', 'PATCH']);
    const secret = await t.secretIn(t.mgmt1, 'clusters-cls-1');
    expect(secret?.metadata?.annotations?.[GENERATION_ANNOTATION]).toBe('3');
  }, 60_000);

  it("another cluster's Secret at our place is an ownership conflict: never compared by stamp, never overwritten", async () => {
    for (const [stamp, id] of [
      ['99', 'other-a'],
      ['1', 'other-b'],
    ] as const) {
      await t.reset();
      await coreApi(t.mgmt1).createNamespacedSecret({
        namespace: 'clusters-cls-1',
        body: {
          metadata: {
            name: NAME,
            labels: { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': id },
            annotations: { [GENERATION_ANNOTATION]: stamp },
          },
          type: 'kubernetes.io/dockerconfigjson',
          data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
        },
      });
      const applied = await t.run(2, 'mgmt-1', 'clusters-cls-1');
      expect(applied.code).toBe(EXIT_CODES.permanent);
      expect(applied.result).toMatchObject({ reason: 'SecretOwnershipConflict' });
      // The job cannot read a foreign Secret: the message names the labels it expected.
      expect(applied.result.message).toContain(`cluster-id=${CLUSTER} expected`);
      const secret = await t.secretIn(t.mgmt1, 'clusters-cls-1');
      expect(secret?.metadata?.labels?.['cluster-id']).toBe(id);
      expect(secret?.metadata?.annotations?.[GENERATION_ANNOTATION]).toBe(stamp);
    }
  }, 60_000);

  describe('a claim read back as ours still stamps ours over an older stamp', () => {
    const stampAfter = async (run: () => Promise<unknown>) => {
      expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).result.kubernetes?.outcome).toBe(
        'created',
      );
      expect((await t.run(2, 'mgmt-1', 'clusters-cls-1')).result.kubernetes?.outcome).toBe(
        'updated',
      );
      await run();
      const third = await t.run(3, 'mgmt-1', 'clusters-cls-1');
      expect(third.code).toBe(EXIT_CODES.success);
      expect(third.result.kubernetes?.outcome).toBe('updated');
      const secret = await t.secretIn(t.mgmt1, 'clusters-cls-1');
      return secret?.metadata?.annotations?.[GENERATION_ANNOTATION];
    };

    it('a claim whose answer was lost (read back as ours)', async () => {
      const stamp = await stampAfter(async () => {
        t.sm.faults.add({
          match: 'UpdateSecret',
          target: SECRET,
          status: 'UNAVAILABLE',
          after: true,
        });
      });
      expect(stamp).toBe('3');
    }, 60_000);

    it('a Cloud Run task retry (its first attempt claimed, then died)', async () => {
      const stamp = await stampAfter(async () => {
        const [secret] = await t.secretManager.getSecret({ name: SECRET });
        const claimed = annotationsWithClaim(secret.annotations ?? {}, {
          generation: 3,
          operation: 'apply',
          attempt: 1,
          execution: 'pullsecret-job-3',
        });
        await t.secretManager.updateSecret({
          secret: { name: SECRET, annotations: claimed },
          updateMask: { paths: ['annotations'] },
        });
      });
      expect(stamp).toBe('3');
    }, 60_000);
  });

  describe('a stamp no execution holds (set by hand, or left from an earlier cluster with the same id)', () => {
    const stampByHand = async (generation: string) => {
      const k8s = await import('@kubernetes/client-node');
      await coreApi(t.mgmt1).patchNamespacedSecret(
        {
          namespace: 'clusters-cls-1',
          name: NAME,
          body: { metadata: { annotations: { [GENERATION_ANNOTATION]: generation } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    };

    it('an apply overwrites nothing and fails permanently, naming the annotation to remove', async () => {
      await t.run(1, 'mgmt-1', 'clusters-cls-1');
      await stampByHand('99');
      const applied = await t.run(2, 'mgmt-1', 'clusters-cls-1', {
        PULL_SECRET_DATA: samplePullSecret('rotated-user', 'rotated-password'),
      });
      expect(applied.code).toBe(EXIT_CODES.permanent);
      expect(applied.result).toMatchObject({ reason: 'SecretGenerationAhead' });
      expect(applied.result.message).toContain('hyperfleet.io/generation=99');
      expect(applied.result.message).toContain('remove it');
      const secret = await t.secretIn(t.mgmt1, 'clusters-cls-1');
      expect(Buffer.from(secret?.data?.['.dockerconfigjson'] ?? '', 'base64').toString()).toBe(
        samplePullSecret(),
      );
    }, 60_000);

    it('a move writes the new place, leaves the old one stamped newer recorded, and fails permanently naming it', async () => {
      await t.run(1, 'mgmt-1', 'clusters-cls-1');
      await stampByHand('99');
      const moved = await t.run(2, 'mgmt-2', 'clusters-cls-1');
      expect(moved.code).toBe(EXIT_CODES.permanent);
      expect(moved.result).toMatchObject({ reason: 'SecretGenerationAhead' });
      expect(moved.result.message).toContain(
        `Secret clusters-cls-1/${NAME} on management cluster mgmt-1`,
      );
      expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1', 'mgmt-2/clusters-cls-1']);
      expect(await t.places()).toEqual([
        place('mgmt-1', 'clusters-cls-1'),
        place('mgmt-2', 'clusters-cls-1'),
      ]);
    }, 60_000);

    it('a delete removes nothing there, keeps the secret and its record, and fails permanently', async () => {
      await t.run(1, 'mgmt-1', 'clusters-cls-1');
      await stampByHand('99');
      const deleted = await t.run(2, 'mgmt-1', 'clusters-cls-1', { OPERATION: 'delete' });
      expect(deleted.code).toBe(EXIT_CODES.permanent);
      expect(deleted.result).toMatchObject({ reason: 'SecretGenerationAhead' });
      expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
      expect(await t.places()).toEqual([place('mgmt-1', 'clusters-cls-1')]);
    }, 60_000);
  });
});
