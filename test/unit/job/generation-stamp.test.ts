import {
  GENERATION_ANNOTATION,
  needsStamp,
  stampFor,
  stampedGeneration,
  writtenByNewer,
} from '../../../functions/pull-secret-job/kubernetes/generation-stamp';

const stamped = (value: string) => ({ [GENERATION_ANNOTATION]: value, other: 'x' });

describe('the generation stamp on the Kubernetes Secret', () => {
  it('reads a positive integer, and nothing else (a hand-edited stamp orders nothing)', () => {
    expect(stampedGeneration(stamped('7'))).toBe(7);
    for (const bad of ['0', '-1', '07', '1.5', 'seven', '', '99999999999999999'])
      expect(stampedGeneration(stamped(bad))).toBeUndefined();
    expect(stampedGeneration({})).toBeUndefined();
    expect(stampedGeneration(undefined)).toBeUndefined();
  });

  it('a Secret stamped by a newer generation is neither overwritten nor removed', () => {
    expect(writtenByNewer(stamped('4'), 3)).toBe(true);
    expect(writtenByNewer(stamped('3'), 3)).toBe(false);
    expect(writtenByNewer(stamped('2'), 3)).toBe(false);
    expect(writtenByNewer({}, 3)).toBe(false);
    // Direct runs have no generation: outside the order, they never yield.
    expect(writtenByNewer(stamped('4'), undefined)).toBe(false);
  });

  it('unchanged bytes are stamped only when an overtaken execution could still undo them', () => {
    // The previous generation wrote (stamp = the claim overtaken): every older one is stopped.
    expect(needsStamp(stamped('2'), 3, 2)).toBe(false);
    // It only confirmed an older write: it may still write other bytes, or remove this as old.
    expect(needsStamp(stamped('1'), 3, 2)).toBe(true);
    expect(needsStamp({}, 3, 2)).toBe(true);
    // A relaunch of the same generation overtakes attempt 1, which may not have written yet.
    expect(needsStamp(stamped('2'), 3, 3)).toBe(true);
    // Nothing overtaken (first run, task retry) or no generation (direct run): nothing to stop.
    expect(needsStamp({}, 3, undefined)).toBe(false);
    expect(needsStamp({}, undefined, 2)).toBe(false);
  });

  it('writes the stamp only for executions with a generation', () => {
    expect(stampFor(5)).toEqual({ [GENERATION_ANNOTATION]: '5' });
    expect(stampFor(undefined)).toEqual({});
  });
});
