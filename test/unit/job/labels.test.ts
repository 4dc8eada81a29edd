// One ownership rule for Secret Manager and Kubernetes alike (issue 26, item 7): managed-by,
// adapter and cluster-id. The exploit test is test/integration/job/secret-manager-ownership.test.ts.
import {
  isOurKubernetesSecret,
  isOurSecretManagerSecret,
  isOurs,
  kubernetesLabels,
  ownershipMismatch,
  secretManagerLabels,
} from '../../../functions/pull-secret-job/config/labels';

const ours = { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'cls-1' };

describe('ownership labels', () => {
  it('is the same rule on Secret Manager and on Kubernetes', () => {
    expect(isOurSecretManagerSecret).toBe(isOurs);
    expect(isOurKubernetesSecret).toBe(isOurs);
  });

  it('recognises what the job writes, on both', () => {
    expect(isOurs(secretManagerLabels({ clusterId: 'cls-1', clusterName: 'n' }), 'cls-1')).toBe(
      true,
    );
    expect(isOurs(kubernetesLabels({ clusterId: 'cls-1' }), 'cls-1')).toBe(true);
  });

  it.each([
    [
      { 'managed-by': 'hyperfleet' },
      'label adapter=pullsecret is missing, label cluster-id=cls-1 is missing',
    ],
    [{ ...ours, adapter: 'dns' }, 'label adapter is "dns", not "pullsecret"'],
    [{ ...ours, 'cluster-id': 'cls-2' }, 'label cluster-id is "cls-2", not "cls-1"'],
    [{ ...ours, 'managed-by': 'someone' }, 'label managed-by is "someone", not "hyperfleet"'],
    [
      {},
      'label managed-by=hyperfleet is missing, label adapter=pullsecret is missing, label cluster-id=cls-1 is missing',
    ],
  ])('refuses %o: %s', (labels, why) => {
    expect(isOurs(labels, 'cls-1')).toBe(false);
    expect(ownershipMismatch(labels, 'cls-1')).toBe(why);
  });

  it('refuses a resource without labels', () => {
    expect(isOurs(undefined, 'cls-1')).toBe(false);
  });
});
