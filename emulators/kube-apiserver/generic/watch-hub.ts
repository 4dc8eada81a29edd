import type { Obj } from '../object-book';

/** One change, as a watch stream carries it. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The resource's key (`plural.group`), its namespace ('' at cluster scope), and the revision. */
  readonly resource: string;
  readonly namespace: string;
  readonly revision: number;
  readonly object: Obj;
}

export type WatchListener = (event: WatchEvent) => void;

/**
 * The recent history of changes and the live listeners. A watch that starts from a
 * resourceVersion replays what happened after it; one older than the history gets 410 Gone
 * ("too old resource version"), as etcd compaction does on a real cluster.
 */
export class WatchHub {
  private readonly history: WatchEvent[] = [];
  private readonly listeners = new Set<WatchListener>();

  constructor(private readonly capacity = 2000) {}

  publish(event: WatchEvent): void {
    this.history.push(event);
    if (this.history.length > this.capacity) this.history.shift();
    for (const listener of this.listeners) listener(event);
  }

  /** Events after `revision`, or undefined when the history no longer reaches back that far. */
  since(revision: number): WatchEvent[] | undefined {
    const oldest = this.history[0];
    if (oldest && oldest.revision > revision + 1 && this.history.length >= this.capacity)
      return undefined;
    return this.history.filter((event) => event.revision > revision);
  }

  subscribe(listener: WatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
