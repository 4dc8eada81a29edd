import type { Claim } from '../../../shared/pull-secret/claim';

/**
 * Reads who holds the claim on a cluster's pull secret (shared/pull-secret/claim.ts), so that the
 * success of a duplicate execution, which wrote nothing, is not reported as if it had.
 */
export interface ClaimReader {
  /** The claim on `projects/P/secrets/S`; undefined when the secret or its claim is absent. */
  read(secretPath: string): Promise<Claim | undefined>;
}
