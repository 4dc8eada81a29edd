/**
 * A cluster's own delay within the resync spread window: a deterministic fraction of `spreadMs`
 * from a hash of the cluster id (32-bit FNV-1a), the same on every instance and every event. Clusters
 * provisioned in one burst then come due for their resync spread over the window instead of all at
 * once (a burst would meet the RunJob quota and Secret Manager's read quota together). Pure.
 */
export function resyncOffsetMs(clusterId: string, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < clusterId.length; i++) {
    hash ^= clusterId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // One more avalanche round: ids that differ only in their last characters still scatter.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return Math.floor(((hash >>> 0) / 0x1_0000_0000) * spreadMs);
}

/**
 * How old our last report must be before a converged cluster is re-run: the resync interval plus
 * the cluster's offset within the spread window, so each cluster's resync period is fixed and
 * clusters provisioned together drift apart. Pure.
 */
export function resyncDueAfterMs(clusterId: string, intervalMs: number, spreadMs: number): number {
  return intervalMs + resyncOffsetMs(clusterId, spreadMs);
}

/** The default spread: a quarter of the interval (6 h at the default 24 h). */
export const defaultResyncSpreadMs = (intervalMs: number): number => Math.floor(intervalMs / 4);
