import fs from 'node:fs';
import path from 'node:path';
import {
  CLUSTER_ID_ATTRIBUTE,
  isIndexableClusterId,
  type ClusterIndexEntry,
  type StoredSpan,
} from './stored-span';

/** Where a trace's spans are: `<dir>/<trace id>.jsonl`, one span per line, in arrival order. */
export const traceFile = (dir: string, traceId: string) => path.join(dir, `${traceId}.jsonl`);
/** A cluster's index: `<dir>/clusters/<cluster id>.jsonl`, one line per span that named it. */
export const clusterIndexFile = (dir: string, clusterId: string) =>
  path.join(dir, 'clusters', `${clusterId}.jsonl`);

/**
 * The local trace store, append-only JSON lines. One file per trace makes reading a trace one
 * read, wherever its spans came from (adapter, job, reporter and API export separately, in any
 * order); the per-cluster index makes "the latest reconcile of cluster X" a read of one small
 * file instead of a scan of every trace. Appends are serialised, so concurrent exports never
 * interleave half lines.
 */
export class SpanStore {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {
    fs.mkdirSync(path.join(dir, 'clusters'), { recursive: true, mode: 0o700 });
  }

  /** Appends spans; resolves once they are on disk (the receiver answers 200 only then). */
  append(spans: readonly StoredSpan[]): Promise<void> {
    const run = this.queue.then(() => this.write(spans));
    // A failed write fails this export only; the next one starts from a clean queue.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(spans: readonly StoredSpan[]): Promise<void> {
    const byTrace = new Map<string, string[]>();
    const byCluster = new Map<string, string[]>();
    for (const span of spans) {
      const lines = byTrace.get(span.traceId) ?? [];
      lines.push(JSON.stringify(span));
      byTrace.set(span.traceId, lines);
      const clusterId = span.attributes[CLUSTER_ID_ATTRIBUTE];
      if (!isIndexableClusterId(clusterId)) continue;
      const entry: ClusterIndexEntry = {
        traceId: span.traceId,
        spanId: span.spanId,
        name: span.name,
        service: span.service,
        startUnixNano: span.startUnixNano,
      };
      const entries = byCluster.get(clusterId) ?? [];
      entries.push(JSON.stringify(entry));
      byCluster.set(clusterId, entries);
    }
    // Trace files first: an index line never points at spans that are not written yet.
    for (const [traceId, lines] of byTrace)
      await fs.promises.appendFile(traceFile(this.dir, traceId), `${lines.join('\n')}\n`, {
        mode: 0o600,
      });
    for (const [clusterId, lines] of byCluster)
      await fs.promises.appendFile(clusterIndexFile(this.dir, clusterId), `${lines.join('\n')}\n`, {
        mode: 0o600,
      });
  }
}
