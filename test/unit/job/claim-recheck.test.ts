import { afterLostClaim } from '../../../functions/pull-secret-job/claim/claim';
import type { Claim } from '../../../shared/pull-secret/claim';

const claim = (operation: Claim['operation'], generation = 3): Claim => ({
  generation,
  operation,
  attempt: 1,
  execution: `pullsecret-job-${operation}`,
});

describe('what an apply does with the Secret it just wrote when the claim was lost meanwhile', () => {
  it('withdraws it when the secret and its record are gone (a delete finished meanwhile)', () => {
    expect(afterLostClaim({ kind: 'superseded' })).toBe('withdraw');
  });

  it('withdraws it when a delete holds the claim (the delete may have cleaned already)', () => {
    expect(afterLostClaim({ kind: 'superseded', holder: claim('delete') })).toBe('withdraw');
    expect(afterLostClaim({ kind: 'superseded', holder: claim('delete', 4) })).toBe('withdraw');
  });

  it('keeps it when a newer apply or a relaunch holds the claim (it may own the same place)', () => {
    expect(afterLostClaim({ kind: 'superseded', holder: claim('apply', 4) })).toBe('keep');
    expect(afterLostClaim({ kind: 'duplicate', holder: claim('apply') })).toBe('keep');
  });
});
