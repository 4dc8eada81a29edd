import fs from 'node:fs';
import { clusterIndexFile, traceFile } from './span-store';
import {
  clusterIndexEntrySchema,
  isIndexableClusterId,
  storedSpanSchema,
  type ClusterIndexEntry,
  type StoredSpan,
} from './stored-span';

/** JSON lines of a file that match a schema; a torn or foreign line is skipped, not fatal. */
function readLines<T>(file: string, parse: (value: unknown) => T | undefined): T[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      const value = parse(JSON.parse(line) as unknown);
      return value === undefined ? [] : [value];
    } catch {
      return [];
    }
  });
}

/** Every span of a trace, once each (an exporter's retry may deliver a span twice). */
export function readTrace(dir: string, traceId: string): StoredSpan[] {
  if (!/^[0-9a-f]{32}$/.test(traceId)) return [];
  const seen = new Set<string>();
  return readLines(traceFile(dir, traceId), (v) => storedSpanSchema.safeParse(v).data).filter(
    (span) => !seen.has(span.spanId) && Boolean(seen.add(span.spanId)),
  );
}

/** The spans that named a cluster, from its index. */
export function readClusterIndex(dir: string, clusterId: string): ClusterIndexEntry[] {
  if (!isIndexableClusterId(clusterId)) return [];
  return readLines(
    clusterIndexFile(dir, clusterId),
    (v) => clusterIndexEntrySchema.safeParse(v).data,
  );
}
