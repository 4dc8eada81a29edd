import {
  CLAIM_ANNOTATIONS,
  annotationsWithClaim,
  claimFromAnnotations,
  decideClaim,
  type Claim,
} from '../../../shared/pull-secret/claim';

const claim = (overrides: Partial<Claim> = {}): Claim => ({
  generation: 5,
  operation: 'apply',
  attempt: 1,
  execution: 'pull-secret-aaaaa',
  ...overrides,
});

describe('decideClaim', () => {
  const other = { execution: 'pull-secret-bbbbb' };
  it.each<[string, Claim | undefined, Claim, string]>([
    ['no claim yet', undefined, claim(), 'take'],
    ['a task retry of the holder (same execution) is re-entrant', claim(), claim(), 'hold'],
    [
      'the same execution name for other work takes it again',
      claim({ generation: 4 }),
      claim(),
      'take',
    ],
    ['the same work by another execution is a duplicate', claim(), claim(other), 'duplicate'],
    ['a newer generation always wins', claim({ generation: 4, attempt: 3 }), claim(other), 'take'],
    [
      'an older generation is superseded',
      claim({ generation: 6 }),
      claim({ ...other, attempt: 9 }),
      'superseded',
    ],
    [
      'a relaunch (higher launch attempt, same generation) takes over',
      claim(),
      claim({ ...other, attempt: 2 }),
      'take',
    ],
    [
      'a lower launch attempt than the holder is superseded',
      claim({ attempt: 2 }),
      claim(other),
      'superseded',
    ],
    [
      'a delete takes over an apply of the same generation',
      claim({ attempt: 3 }),
      claim({ ...other, operation: 'delete' }),
      'take',
    ],
    [
      'an apply is superseded by a delete of the same generation',
      claim({ operation: 'delete' }),
      claim({ ...other, attempt: 2 }),
      'superseded',
    ],
    [
      'two deletes of the same generation and attempt: one is a duplicate',
      claim({ operation: 'delete' }),
      claim({ ...other, operation: 'delete' }),
      'duplicate',
    ],
    [
      'a delete of an older generation is superseded by a newer apply',
      claim({ generation: 6 }),
      claim({ ...other, operation: 'delete' }),
      'superseded',
    ],
  ])('%s', (_name, stored, mine, expected) => {
    const decision = decideClaim(stored, mine);
    expect(decision.kind).toBe(expected);
    if (decision.kind === 'duplicate' || decision.kind === 'superseded')
      expect(decision.holder).toEqual(stored);
  });
});

describe('claim annotations', () => {
  it('round-trips a claim and keeps unrelated annotations', () => {
    const annotations = annotationsWithClaim({ team: 'a' }, claim({ operation: 'delete' }));
    expect(annotations).toEqual({
      team: 'a',
      [CLAIM_ANNOTATIONS.generation]: '5',
      [CLAIM_ANNOTATIONS.operation]: 'delete',
      [CLAIM_ANNOTATIONS.attempt]: '1',
      [CLAIM_ANNOTATIONS.execution]: 'pull-secret-aaaaa',
    });
    expect(claimFromAnnotations(annotations)).toEqual(claim({ operation: 'delete' }));
  });

  it.each<[string, Record<string, string> | undefined]>([
    ['no annotations', undefined],
    ['no claim', { team: 'a' }],
    [
      'a non-numeric generation',
      { ...annotationsWithClaim({}, claim()), [CLAIM_ANNOTATIONS.generation]: 'x' },
    ],
    [
      'an unknown operation',
      { ...annotationsWithClaim({}, claim()), [CLAIM_ANNOTATIONS.operation]: 'patch' },
    ],
    ['no holder', { ...annotationsWithClaim({}, claim()), [CLAIM_ANNOTATIONS.execution]: '' }],
  ])('reads %s as no claim (which any execution may take)', (_name, annotations) => {
    expect(claimFromAnnotations(annotations)).toBeUndefined();
  });

  it('uses keys the Secret Manager annotation rules accept (no "/")', () => {
    for (const key of Object.values(CLAIM_ANNOTATIONS))
      expect(key).toMatch(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/);
  });
});
