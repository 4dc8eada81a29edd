import type { LostClaim } from './claim-work';

/**
 * What an apply does with the Kubernetes Secret it has just written when the claim re-read after
 * the write says it lost the work.
 *
 * - `withdraw`: the secret (and the record of places with it) is gone, or a delete holds the claim.
 *   The delete may already have read the record and removed its places, and deletes the secret
 *   with the record last, so nobody would ever remove what we wrote: we remove it ourselves (only
 *   if it carries our labels). A delete still running meets it absent, which is success.
 * - `keep`: a newer apply generation or a relaunch of ours holds the claim. It may have written the
 *   very same place (same name, same labels), so removing ours could remove its Secret. The place
 *   was recorded again after our write, so that execution or the next one cleans it if it is old.
 *   Our write cannot have undone a newer generation's: it was conditional on a Secret not stamped
 *   newer (generation-stamp.ts). And if the newer one forgot this place while we wrote, its read
 *   after forgetting finds ours and records it again (clean-old-places.ts).
 */
export type PostWriteAction = 'withdraw' | 'keep';

export function afterLostClaim(lost: LostClaim): PostWriteAction {
  if (!lost.holder) return 'withdraw';
  return lost.holder.operation === 'delete' ? 'withdraw' : 'keep';
}
