import type { LostClaim } from './claim-work';

/**
 * What an apply does with what it has just written (the Kubernetes Secret, the Secret Manager
 * version it added) when a later check says it lost the work: the claim re-read after the
 * Kubernetes write, or the cluster check before it (cluster-check.ts).
 *
 * - `withdraw`: the secret (and the record of places with it) is gone, a delete holds the claim,
 *   or the cluster is being deleted. The delete may already have read the record, removed its
 *   places and destroyed the versions it listed, so nobody would ever remove what we wrote: we
 *   remove it ourselves (the Secret only if it carries our labels, the version only if we added
 *   it). A delete still running meets them absent or destroyed, which is success.
 * - `keep`: a newer apply generation or a relaunch of ours holds the claim. It may have written the
 *   very same place (same name, same labels), so removing ours could remove its Secret. The place
 *   was recorded again after our write, so that execution or the next one cleans it if it is old.
 *   Our write cannot have undone a newer generation's: it was conditional on a Secret not stamped
 *   newer (generation-stamp.ts). And if the newer one forgot this place while we wrote, its read
 *   after forgetting finds ours and records it again (clean-old-places.ts).
 */
export type PostWriteAction = 'withdraw' | 'keep';

export function afterLostClaim(lost: LostClaim): PostWriteAction {
  // The cluster check: a newer generation writes the same place and version itself (keep); a
  // deleting or gone cluster is the delete's case, whether or not its claim landed yet (withdraw).
  if (lost.cluster) return lost.cluster.kind === 'newer' ? 'keep' : 'withdraw';
  if (!lost.holder) return 'withdraw';
  return lost.holder.operation === 'delete' ? 'withdraw' : 'keep';
}
