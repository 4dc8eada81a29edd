/**
 * The claim an execution takes on a cluster's pull secret before writing anything: which
 * generation, operation and launch attempt it works for, and which execution it is. It lives in the
 * Secret Manager secret's annotations and is written with the secret's etag (optimistic
 * concurrency), so that of two executions racing for the same work exactly one goes on to write.
 */
export interface Claim {
  readonly generation: number;
  readonly operation: 'apply' | 'delete';
  /** LAUNCH_ATTEMPT: a relaunch by the adapter has a higher attempt and may take a claim over. */
  readonly attempt: number;
  /** CLOUD_RUN_EXECUTION of the holder; its own task retries keep the same name. */
  readonly execution: string;
}

/**
 * Annotation keys of the claim. Secret Manager annotation keys may contain only letters, digits,
 * `-`, `_` and `.` (no `/`, unlike Kubernetes), so the prefix is joined with a hyphen.
 */
export const CLAIM_ANNOTATIONS = {
  generation: 'hyperfleet.io-claimed-generation',
  operation: 'hyperfleet.io-claimed-operation',
  attempt: 'hyperfleet.io-claimed-attempt',
  execution: 'hyperfleet.io-claimed-by',
} as const;

/** What an execution does after comparing its own work with the stored claim. */
export type ClaimDecision =
  /** Write the claim (with the etag just read), then go on. */
  | { readonly kind: 'take'; readonly why: string }
  /** The claim is already ours (a task retry of the same execution): go on without writing it. */
  | { readonly kind: 'hold' }
  /** Another execution does the same work: write nothing, exit 0, report nothing. */
  | { readonly kind: 'duplicate'; readonly holder: Claim }
  /** Newer work holds the claim: write nothing, exit 0, report nothing. */
  | { readonly kind: 'superseded'; readonly holder: Claim };

/** The claim stored in a secret's annotations; undefined when absent or unreadable. */
export function claimFromAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): Claim | undefined {
  if (!annotations) return undefined;
  const generation = Number(annotations[CLAIM_ANNOTATIONS.generation]);
  const attempt = Number(annotations[CLAIM_ANNOTATIONS.attempt]);
  const operation = annotations[CLAIM_ANNOTATIONS.operation];
  const execution = annotations[CLAIM_ANNOTATIONS.execution];
  if (!Number.isInteger(generation) || generation < 1) return undefined;
  if (!Number.isInteger(attempt) || attempt < 1) return undefined;
  if (operation !== 'apply' && operation !== 'delete') return undefined;
  if (!execution) return undefined;
  return { generation, operation, attempt, execution };
}

/** The secret's annotations with `claim` written in, keeping every other annotation. */
export function annotationsWithClaim(
  annotations: Readonly<Record<string, string>> | undefined,
  claim: Claim,
): Record<string, string> {
  return {
    ...(annotations ?? {}),
    [CLAIM_ANNOTATIONS.generation]: String(claim.generation),
    [CLAIM_ANNOTATIONS.operation]: claim.operation,
    [CLAIM_ANNOTATIONS.attempt]: String(claim.attempt),
    [CLAIM_ANNOTATIONS.execution]: claim.execution,
  };
}

/**
 * Decides what `mine` does given the stored claim. Order of precedence: the same execution is
 * re-entrant; a newer generation always wins; at the same generation a delete wins over an apply
 * (the cluster is going away); then a higher launch attempt wins (the adapter relaunched after a
 * failure or timeout); the same attempt by another execution is a duplicate.
 */
export function decideClaim(stored: Claim | undefined, mine: Claim): ClaimDecision {
  if (!stored) return { kind: 'take', why: 'no claim yet' };
  if (stored.execution === mine.execution) {
    return sameWork(stored, mine)
      ? { kind: 'hold' }
      : { kind: 'take', why: 'our own earlier claim is for other work' };
  }
  if (stored.generation > mine.generation) return { kind: 'superseded', holder: stored };
  if (stored.generation < mine.generation)
    return {
      kind: 'take',
      why: `generation ${mine.generation} is newer than ${stored.generation}`,
    };
  if (stored.operation !== mine.operation) {
    return mine.operation === 'delete'
      ? { kind: 'take', why: 'a delete wins over an apply of the same generation' }
      : { kind: 'superseded', holder: stored };
  }
  if (stored.attempt > mine.attempt) return { kind: 'superseded', holder: stored };
  if (stored.attempt < mine.attempt)
    return { kind: 'take', why: `launch attempt ${mine.attempt} relaunches ${stored.attempt}` };
  return { kind: 'duplicate', holder: stored };
}

function sameWork(a: Claim, b: Claim): boolean {
  return a.generation === b.generation && a.operation === b.operation && a.attempt === b.attempt;
}

/** One line naming a claim, for logs and the result message. */
export function describeClaim(claim: Claim): string {
  return `${claim.operation} of generation ${claim.generation}, launch attempt ${claim.attempt}, by execution ${claim.execution}`;
}
