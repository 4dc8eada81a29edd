import { legacyPlaces, reportable } from '../../../functions/pull-secret-job/places/legacy-places';
import type { Place } from '../../../functions/pull-secret-job/places/places';
import {
  unconfiguredPlaceWarning,
  secretManagerDisposal,
} from '../../../functions/pull-secret-job/run/unknown-cluster';

const NAME = 'cls-1-pull-secret';
const place = (cluster: string, namespace: string): Place => ({
  cluster,
  namespace,
  name: NAME,
});
const target = place('mgmt-2', 'ns-b');
const where = { clusters: ['mgmt-1', 'mgmt-2'], clusterId: 'cls-1', namespace: 'ns-b', target };
const unrecorded = { exists: true, recorded: [], createdNow: false };

describe('legacy places: where a version before the placement record may have written', () => {
  it("every configured cluster, at this execution's namespace and clusters-{id}, except the target", () => {
    expect(legacyPlaces(unrecorded, where)).toEqual([
      place('mgmt-1', 'clusters-cls-1'),
      place('mgmt-1', 'ns-b'),
      place('mgmt-2', 'clusters-cls-1'),
    ]);
  });

  it('one cluster whose namespace is clusters-{id}: nothing to guess', () => {
    const single = { clusters: ['default'], clusterId: 'cls-1', namespace: 'clusters-cls-1' };
    expect(
      legacyPlaces(unrecorded, { ...single, target: place('default', 'clusters-cls-1') }),
    ).toEqual([]);
  });

  it('none once anything is recorded, without a secret of ours, or for a secret created now', () => {
    expect(legacyPlaces({ ...unrecorded, recorded: [target] }, where)).toEqual([]);
    expect(legacyPlaces({ ...unrecorded, exists: false }, where)).toEqual([]);
    expect(legacyPlaces({ ...unrecorded, createdNow: true }, where)).toEqual([]);
  });

  it('never guesses a namespace name Kubernetes would refuse (a very long cluster id)', () => {
    const long = 'c'.repeat(60);
    expect(legacyPlaces(unrecorded, { ...where, clusterId: long }).map((p) => p.namespace)).toEqual(
      ['ns-b'],
    );
  });

  it('reports a guess only when ours was found and deleted there', () => {
    const legacy = [place('mgmt-1', 'ns-b')];
    expect(reportable(legacy, { place: legacy[0]!, outcome: 'deleted' })).toBe(true);
    expect(reportable(legacy, { place: legacy[0]!, outcome: 'absent' })).toBe(false);
    expect(reportable(legacy, { place: legacy[0]!, outcome: 'foreign' })).toBe(false);
    expect(reportable(legacy, { place: target, outcome: 'absent' })).toBe(true);
  });
});

describe('an earlier place on a management cluster no longer configured', () => {
  const old = place('mgmt-1', 'ns-a');

  it('says which cluster, what to delete by hand and how to recognise it, and that it stays recorded', () => {
    const text = unconfiguredPlaceWarning(old, ['mgmt-2'], 'cls-1', 'move');
    expect(text).toContain('"mgmt-1" is no longer in MANAGEMENT_CLUSTERS (known: mgmt-2)');
    expect(text).toContain(`Secret ns-a/${NAME} on management cluster mgmt-1`);
    expect(text).toContain('managed-by=hyperfleet and cluster-id=cls-1');
    expect(text).toContain(`kubectl -n ns-a delete secret ${NAME}`);
    expect(text).toContain('stays recorded');
    expect(text).toMatch(/annotation hyperfleet\.io-placed-[0-9a-f]{16}/);
  });

  it('on a delete, says the Secret Manager secret is kept as the record of it', () => {
    const text = unconfiguredPlaceWarning(old, [], 'cls-1', 'delete');
    expect(text).toContain('(known: none)');
    expect(text).toContain('The Secret Manager secret is kept (its versions disabled');
    expect(text).toContain('the next delete removes it and then the secret');
  });

  it('a kept unconfigured place overrides ON_DELETE=delete; a newer-stamped one does not', () => {
    expect(secretManagerDisposal('delete', [{ why: 'unconfigured' }])).toBe('retain');
    expect(secretManagerDisposal('delete', [{ why: 'newer' }])).toBe('delete');
    expect(secretManagerDisposal('delete', [])).toBe('delete');
    expect(secretManagerDisposal('retain', undefined)).toBe('retain');
  });
});
