/**
 * Counts failures per message id with bounded memory: the least recently failed ids are forgotten
 * first. Forgetting one only lets that message be retried a little longer; the age bound still
 * ends it. A success forgets its id at once.
 */
export class FailureCounter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`capacity must be a whole number of at least 1, got ${capacity}`);
  }

  /** Records one more failure of `id` and returns how many this instance has seen. */
  recordFailure(id: string): number {
    const count = (this.counts.get(id) ?? 0) + 1;
    // Re-inserting moves the id to the end of the Map's order: the oldest entry is evicted first.
    this.counts.delete(id);
    this.counts.set(id, count);
    while (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next().value;
      if (oldest === undefined) break;
      this.counts.delete(oldest);
    }
    return count;
  }

  forget(id: string): void {
    this.counts.delete(id);
  }

  get size(): number {
    return this.counts.size;
  }
}
