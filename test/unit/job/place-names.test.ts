// The recorded places are read from annotations the tenant can edit (issue 26, item 7): only names
// Kubernetes itself accepts are used; the exploit test is test/integration/job/recorded-places.test.ts.
import {
  PLACED_PREFIX,
  placeKey,
  placeNameProblem,
  recordedPlaces,
  type Place,
} from '../../../functions/pull-secret-job/places/place-record';

const place = (cluster: string, namespace: string, name: string): Place => ({
  cluster,
  namespace,
  name,
});

describe('recorded places: names a Kubernetes API path can be built from', () => {
  it.each([
    place('mgmt-1', 'clusters-cls-1', 'cls-1-pull-secret'),
    place('a'.repeat(63), 'b'.repeat(63), 'c'.repeat(253)),
    place('default', 'ns', 'pull.secret.v2'),
  ])('accepts %o', (p) => expect(placeNameProblem(p)).toBeUndefined());

  it.each([
    [place('mgmt-1', 'victim', '..'), 'Secret name'],
    [place('mgmt-1', '..', 'victim'), 'namespace'],
    [place('..', 'ns', 'name'), 'management cluster'],
    [place('mgmt-1', '.', 'name'), 'namespace'],
    [place('mgmt-1', 'ns', 'a..b'), 'Secret name'],
    [place('mgmt-1', 'ns', '.hidden'), 'Secret name'],
    [place('mgmt-1', 'kube-system.', 'name'), 'namespace'],
    [place('mgmt-1', 'ns', 'Not_A_Name'), 'Secret name'],
    [place('mgmt-1', 'ns', 'x%2F..'), 'Secret name'],
    [place('mgmt-1', 'ns', 'x?watch=1'), 'Secret name'],
    [place('mgmt-1', 'ns ', 'name'), 'namespace'],
    [place('Mgmt-1', 'ns', 'name'), 'management cluster'],
    [place('mgmt-1', 'n'.repeat(64), 'name'), 'namespace'],
    [place('mgmt-1', 'ns', 'n'.repeat(254)), 'Secret name'],
    [place('', 'ns', 'name'), 'management cluster'],
  ])('refuses %o (%s)', (p, part) => expect(placeNameProblem(p)).toContain(part));

  it('ignores invalid entries, says why, and keeps the valid ones', () => {
    const good = place('mgmt-1', 'ns-a', 'cls-1-pull-secret');
    const dots = place('mgmt-1', 'victim', '..');
    const entry = (p: Place) => ({
      [placeKey(p)]: `${p.cluster}/${p.namespace}/${p.name}`,
    });
    const read = recordedPlaces({
      ...entry(good),
      ...entry(dots),
      [`${PLACED_PREFIX}0000000000000000`]: 'mgmt-1/ns-b/cls-1-pull-secret',
      [`${PLACED_PREFIX}junk`]: 'a/b/c/d',
      unrelated: '../../..',
    });
    expect(read.places).toEqual([good]);
    expect(read.ignored).toEqual([
      {
        key: placeKey(dots),
        value: 'mgmt-1/victim/..',
        problem: 'the Secret name is not a DNS subdomain',
      },
      {
        key: `${PLACED_PREFIX}0000000000000000`,
        value: 'mgmt-1/ns-b/cls-1-pull-secret',
        problem: 'its key is not the hash of its value',
      },
      {
        key: `${PLACED_PREFIX}junk`,
        value: 'a/b/c/d',
        problem: 'it is not cluster/namespace/name',
      },
    ]);
  });
});
