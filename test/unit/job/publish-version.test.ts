import { lostClaimIn } from '../../../functions/pull-secret-job/claim/claim';
import { ownershipLabels } from '../../../functions/pull-secret-job/config/labels';
import {
  mayWithdrawAdopted,
  PUBLISHED_GENERATION_ANNOTATION,
  publishStep,
  type Publisher,
} from '../../../functions/pull-secret-job/secret-manager/publish-version';
import type { SecretMetadata } from '../../../functions/pull-secret-job/secret-manager/secret-store';
import { annotationsWithClaim, type Claim } from '../../../shared/pull-secret/claim';

// The compare-and-swap decision of publish-version.ts, on the secret as read: whether this
// execution makes its version `current`, and what it writes with the read's etag.

const claim = (
  generation: number,
  attempt = 1,
  operation: Claim['operation'] = 'apply',
): Claim => ({
  generation,
  operation,
  attempt,
  execution: `exec-g${generation}-a${attempt}-${operation}`,
});
const publisher = (mine: Claim): Publisher => ({
  generation: mine.generation,
  lostIn: (current) => lostClaimIn(current, mine),
});
const secret = (
  holder: Claim,
  published?: { generation?: number; version: number },
  otherAliases: Record<string, number> = {},
): SecretMetadata => ({
  labels: ownershipLabels('cls-1'),
  annotations: {
    ...annotationsWithClaim({ 'team.example.com-owner': 'ops' }, holder),
    ...(published?.generation !== undefined
      ? { [PUBLISHED_GENERATION_ANNOTATION]: String(published.generation) }
      : {}),
  },
  etag: '"e1"',
  versionAliases: { ...otherAliases, ...(published ? { current: published.version } : {}) },
});

describe('publishStep: making a version current, or standing aside', () => {
  it.each([
    ['no alias yet', secret(claim(2)), 5],
    ['an older generation published', secret(claim(2), { generation: 1, version: 4 }), 5],
    [
      'the same generation published (a task retry of ours)',
      secret(claim(2), { generation: 2, version: 4 }),
      5,
    ],
    ['a direct run published (no generation said)', secret(claim(2), { version: 4 }), 5],
  ])('swaps when we hold the claim and nothing newer published: %s', (_, read, version) => {
    const step = publishStep(read, version, publisher(claim(2)));
    expect(step).toEqual({
      update: {
        ...read.annotations,
        [PUBLISHED_GENERATION_ANNOTATION]: '2',
      },
      aliases: { current: version },
      then: { published: true },
    });
  });

  it('keeps every other alias and annotation: the update replaces whole maps', () => {
    const read = secret(claim(2), { generation: 1, version: 4 }, { pinned: 1, canary: 3 });
    const step = publishStep(read, 5, publisher(claim(2)));
    expect('update' in step && step.aliases).toEqual({ pinned: 1, canary: 3, current: 5 });
    expect('update' in step && step.update['team.example.com-owner']).toBe('ops');
  });

  it.each([
    ['a newer generation holds the claim', secret(claim(3)), claim(3)],
    ['a relaunch of our generation holds it', secret(claim(2, 2)), claim(2, 2)],
    ['a delete of our generation holds it', secret(claim(2, 1, 'delete')), claim(2, 1, 'delete')],
    // The newer generation found its bytes already current and published nothing: the published
    // generation is older than ours, so only the claim stops us from moving `current` back.
    [
      'a newer generation holds it without publishing',
      secret(claim(3), { generation: 1, version: 4 }),
      claim(3),
    ],
  ])('stands aside, writing nothing, when %s', (_, read, holder) => {
    expect(publishStep(read, 5, publisher(claim(2)))).toEqual({
      done: { lost: { kind: 'superseded', holder } },
    });
  });

  it('stands aside when a newer generation published, even should the claim say ours', () => {
    const read = secret(claim(2), { generation: 3, version: 6 });
    expect(publishStep(read, 5, publisher(claim(2)))).toEqual({
      done: { lost: { kind: 'superseded', holder: claim(2) } },
    });
  });

  it('stands aside when the secret is gone (a delete holds the work)', () => {
    expect(publishStep(undefined, 5, publisher(claim(2)))).toEqual({
      done: { lost: { kind: 'superseded' } },
    });
  });

  it('reads an applied swap whose answer was lost as published, writing nothing', () => {
    const read = secret(claim(2), { generation: 2, version: 5 });
    expect(publishStep(read, 5, publisher(claim(2)))).toEqual({ done: { published: true } });
  });

  it('a direct run (no claim, no generation) publishes over anything, and says no generation', () => {
    const read = secret(claim(7), { generation: 7, version: 4 });
    const step = publishStep(read, 5, { lostIn: () => undefined });
    expect(step).toMatchObject({ aliases: { current: 5 }, then: { published: true } });
    expect('update' in step && step.update).not.toHaveProperty(PUBLISHED_GENERATION_ANNOTATION);
  });
});

describe('mayWithdrawAdopted: a version adopted after a lost answer, withdrawn only when nobody can publish it', () => {
  const V3 = 'projects/p/secrets/s/versions/3';
  it.each<[string, SecretMetadata | undefined, number | undefined, boolean]>([
    [
      'a newer generation published another version',
      secret(claim(3), { generation: 3, version: 2 }),
      2,
      true,
    ],
    ['nothing published yet: another execution may publish it', secret(claim(3)), 2, false],
    [
      'the publisher is older: the claim holder may still publish it',
      secret(claim(3), { generation: 1, version: 1 }),
      2,
      false,
    ],
    [
      "our own generation published: it may be that execution's",
      secret(claim(2, 2), { generation: 2, version: 2 }),
      2,
      false,
    ],
    [
      'the newer generation published this very version',
      secret(claim(3), { generation: 3, version: 3 }),
      2,
      false,
    ],
    [
      'a direct run has no generation to compare',
      secret(claim(3), { generation: 3, version: 2 }),
      undefined,
      false,
    ],
    ['the secret is gone', undefined, 2, false],
  ])('%s', (_name, seen, generation, expected) => {
    expect(mayWithdrawAdopted(seen, V3, generation)).toBe(expected);
  });
});
