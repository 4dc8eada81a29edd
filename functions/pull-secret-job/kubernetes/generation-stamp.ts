import { PermanentError } from '../../../shared/errors';

/**
 * The generation whose execution last wrote a Kubernetes Secret, stamped on the Secret itself.
 *
 * The claim (claim-work.ts) orders executions in Secret Manager, but a Kubernetes write or delete
 * cannot be made conditional on it: an execution that passed its claim re-check may still be slow, and a
 * newer generation may write, confirm or move the Secret before the lagging call lands. The stamp
 * puts the order where the write happens: every write and delete we make carries the Secret's
 * `resourceVersion` as a precondition, so "read the stamp, then write or delete" is atomic, and a
 * lagging generation sees what a newer one did instead of undoing it.
 */
export const GENERATION_ANNOTATION = 'hyperfleet.io/generation';

/**
 * The generation stamped on a Secret; undefined when it has none (written before stamps existed,
 * or by a direct run) or when the value is not a positive integer (edited by hand: such a stamp
 * orders nothing, so the Secret is treated as unstamped and may be overwritten or removed).
 */
export function stampedGeneration(
  annotations: Readonly<Record<string, string>> | undefined,
): number | undefined {
  const value = annotations?.[GENERATION_ANNOTATION];
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value)) return undefined;
  return Number(value);
}

/**
 * True when a newer generation than `mine` wrote the Secret: it must be neither overwritten nor
 * removed. Executions without a generation (direct runs, dry runs of a direct run) are outside the
 * order and never yield; an unstamped Secret is never newer.
 */
export function writtenByNewer(
  annotations: Readonly<Record<string, string>> | undefined,
  mine: number | undefined,
): boolean {
  const stamped = stampedGeneration(annotations);
  return mine !== undefined && stamped !== undefined && stamped > mine;
}

/**
 * True when a Secret whose bytes are already right must still be written to carry `mine`: whenever
 * the stored stamp is older than mine (or absent). Only an execution older than us can still undo
 * our state, and a stamp below ours stops none of those between it and us: a lagging one with
 * other bytes would overwrite it (a lost write), or remove it as an old place after a move back.
 * Once stamped with ours, a task retry or a relaunch of our generation finds nothing to write. The
 * cost: one patch on a generation change that leaves the pull secret as it was. Executions without
 * a generation (direct runs) are outside the order and never stamp.
 */
export function needsStamp(
  annotations: Readonly<Record<string, string>> | undefined,
  mine: number | undefined,
): boolean {
  if (mine === undefined) return false;
  const stamped = stampedGeneration(annotations);
  return stamped === undefined || stamped < mine;
}

/** The stamp to write: none for executions without a generation (the existing one stays). */
export const stampFor = (mine: number | undefined): Record<string, string> =>
  mine === undefined ? {} : { [GENERATION_ANNOTATION]: String(mine) };

/**
 * The Secret at the target was written by a newer generation: this execution stops without
 * writing. Thrown by the sync; the Kubernetes phase re-reads the claim and normally ends superseded.
 */
export class NewerGenerationError extends PermanentError {
  constructor(
    readonly where: string,
    readonly stamped: number,
    readonly mine: number,
  ) {
    super(
      `${where} carries ${GENERATION_ANNOTATION}=${stamped}, newer than this execution's generation ${mine}, yet no newer execution holds the pull secret claim. It was left as it is. If that annotation is stale (set by hand, or left from an earlier cluster with the same id), remove it and run the job again.`,
      'SecretGenerationAhead',
    );
  }
}
