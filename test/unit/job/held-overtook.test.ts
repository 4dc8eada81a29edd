import { heldOvertook } from '../../../functions/pull-secret-job/claim/claim-work';
import { needsStamp } from '../../../functions/pull-secret-job/kubernetes/generation-stamp';
import type { Claim } from '../../../shared/pull-secret/claim';

const claim = (generation: number, execution = `pullsecret-job-${generation}`): Claim => ({
  generation,
  operation: 'apply',
  attempt: 1,
  execution,
});

describe('heldOvertook: what a claim read back as ours overtook', () => {
  const mine = claim(3);

  it('after our write whose answer was lost: the claim that write replaced', () => {
    expect(heldOvertook(mine, { overtaking: claim(2) })).toEqual(claim(2));
    expect(needsStamp({ 'hyperfleet.io/generation': '1' }, 3, 2)).toBe(true);
  });

  it('after our write over no claim at all: nothing overtaken', () => {
    expect(heldOvertook(mine, {})).toBeUndefined();
  });

  it('a Cloud Run task retry (no write this run): our own generation, so an older stamp is renewed', () => {
    expect(heldOvertook(mine, undefined)).toEqual(mine);
    expect(needsStamp({ 'hyperfleet.io/generation': '2' }, 3, 3)).toBe(true);
    // The first attempt already stamped: nothing to write again.
    expect(needsStamp({ 'hyperfleet.io/generation': '3' }, 3, 3)).toBe(false);
  });
});
