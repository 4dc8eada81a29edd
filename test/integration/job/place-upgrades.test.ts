// Places the job finds after its configuration changed, as real job processes against two
// Kubernetes emulators: a recorded cluster that is no longer configured.
import { EXIT_CODES } from '../../../shared/job-result';
import { leftAfterDelete } from '../../helpers/secret-manager';
import {
  NAME,
  SECRET,
  place,
  startTwoClusters,
  type TwoClusters,
} from '../../helpers/two-management-clusters';

describe('places after a configuration change (two Kubernetes emulators)', () => {
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

  const warningsAbout = (lines: Record<string, unknown>[], text: string) =>
    lines.filter((l) => l.severity === 'WARNING' && String(l.message).includes(text));

  describe('a recorded management cluster removed from MANAGEMENT_CLUSTERS', () => {
    it('a move away from it succeeds at the new place, warns what to clean by hand, and keeps the place recorded', async () => {
      expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
      t.mgmt1.requests.clear();
      const moved = await t.run(2, 'mgmt-2', 'clusters-cls-1', {
        MANAGEMENT_CLUSTERS: t.only('mgmt-2'),
        DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-2',
      });
      expect(moved.code).toBe(EXIT_CODES.success);
      expect(moved.result).toMatchObject({
        outcome: 'succeeded',
        reason: 'PullSecretProvisioned',
        kubernetes: {
          management_cluster: 'mgmt-2',
          namespace: 'clusters-cls-1',
          outcome: 'created',
        },
      });
      const [warning, ...more] = warningsAbout(moved.lines, '"mgmt-1"');
      expect(more).toEqual([]);
      expect(warning?.message).toContain('no longer in MANAGEMENT_CLUSTERS (known: mgmt-2)');
      expect(warning?.message).toContain(`Secret clusters-cls-1/${NAME}`);
      expect(warning?.message).toContain('by hand');
      expect(warning?.message).toContain('stays recorded');
      expect(warning).toMatchObject({ metadata: { management_cluster: 'mgmt-1' } });
      // The result (the status message people read) says it too.
      expect(moved.result.message).toContain(
        `Earlier places not removed, on management clusters no longer in MANAGEMENT_CLUSTERS (delete by hand, see the job's warning): Secret clusters-cls-1/${NAME} on management cluster mgmt-1.`,
      );
      // Nothing could be sent there; ours stays, and so does the record of it.
      expect(t.mgmt1.requests.list()).toEqual([]);
      expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1', 'mgmt-2/clusters-cls-1']);
      expect(await t.places()).toEqual([
        place('mgmt-1', 'clusters-cls-1'),
        place('mgmt-2', 'clusters-cls-1'),
      ]);

      // mgmt-1 configured again: the next execution removes ours there and forgets the place.
      const next = await t.run(3, 'mgmt-2', 'clusters-cls-1');
      expect(next.code).toBe(EXIT_CODES.success);
      expect(next.result.cleaned_placements).toEqual([
        {
          management_cluster: 'mgmt-1',
          namespace: 'clusters-cls-1',
          name: NAME,
          outcome: 'deleted',
        },
      ]);
      expect(await t.everywhere()).toEqual(['mgmt-2/clusters-cls-1']);
      expect(await t.places()).toEqual([place('mgmt-2', 'clusters-cls-1')]);
    }, 60_000);

    it('a delete succeeds, warns, and keeps the secret as a tombstone (the only record of that place) until a later delete cleans it', async () => {
      expect((await t.run(1, 'mgmt-1', 'clusters-cls-1')).code).toBe(EXIT_CODES.success);
      // The cluster is deleted after mgmt-1 left the configuration (placement names mgmt-2).
      const deleted = await t.run(2, 'mgmt-2', 'clusters-cls-1', {
        OPERATION: 'delete',
        ON_DELETE: 'delete',
        MANAGEMENT_CLUSTERS: t.only('mgmt-2'),
        DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-2',
      });
      expect(deleted.code).toBe(EXIT_CODES.success);
      expect(deleted.result).toMatchObject({
        reason: 'CleanupConfirmed',
        kubernetes: {
          management_cluster: 'mgmt-2',
          namespace: 'clusters-cls-1',
          outcome: 'absent',
        },
        secret_manager: { secret: 'retained' },
      });
      const [warning] = warningsAbout(deleted.lines, 'retained (versions disabled), not deleted');
      expect(warning?.message).toContain(
        `Secret clusters-cls-1/${NAME} on management cluster mgmt-1`,
      );
      expect(deleted.result.message).toContain(
        `not removed, on management clusters no longer in MANAGEMENT_CLUSTERS (delete by hand, see the job's warning): Secret clusters-cls-1/${NAME} on management cluster mgmt-1;`,
      );
      // The live Secret and the record of it both remain; nothing can read the pull secret.
      expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
      expect(await t.places()).toEqual([place('mgmt-1', 'clusters-cls-1')]);
      const [versions] = await t.secretManager.listSecretVersions({ parent: SECRET });
      expect(versions.map((v) => v.state)).toEqual(['DISABLED']);

      // mgmt-1 configured again: the next delete removes ours there, then the secret's versions.
      const again = await t.run(2, 'mgmt-2', 'clusters-cls-1', {
        OPERATION: 'delete',
        ON_DELETE: 'delete',
      });
      expect(again.code).toBe(EXIT_CODES.success);
      expect(again.result).toMatchObject({ secret_manager: { secret: 'deleted' } });
      expect(again.result.cleaned_placements).toEqual([
        {
          management_cluster: 'mgmt-1',
          namespace: 'clusters-cls-1',
          name: NAME,
          outcome: 'deleted',
        },
      ]);
      expect(await t.everywhere()).toEqual([]);
      // The record is empty now: the secret can go, as a tombstone (its versions destroyed).
      expect(await leftAfterDelete(t.secretManager, SECRET)).toBe('tombstone');
    }, 60_000);
  });
});
