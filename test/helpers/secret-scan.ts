import fs from 'node:fs';
import path from 'node:path';
import type { TestStack } from './stack';
import { canaryOf, leaks, type Canary } from './canary';

/**
 * Every enabled version of the stack's platform default pull secret as a canary (none without a
 * default): its bytes are a credential like any cluster's, which no output may carry either.
 */
export async function defaultPullSecretCanaries(stack: TestStack): Promise<Canary[]> {
  if (!stack.d.defaultPullSecret) return [];
  const [versions] = await stack.sm.listSecretVersions({ parent: stack.d.defaultPullSecret });
  const enabled = versions.filter((v) => v.state === 'ENABLED' && v.name);
  return Promise.all(
    enabled.map(async (v) => {
      const [answer] = await stack.sm.accessSecretVersion({ name: v.name! });
      return canaryOf(answer.payload?.data?.toString() ?? '');
    }),
  );
}

/**
 * Everything the system wrote that a canary must never appear in: every log line, every status
 * body of every cluster, every message on the system's topics, every execution spec, stack.json,
 * and every span the stack's trace receiver stored (.local/traces: names, attributes, events).
 * The platform default's versions are scanned for besides `canaries`.
 */
export async function scanForCanaries(
  stack: TestStack,
  canaries: readonly Canary[],
): Promise<string[]> {
  const clusters = await stack.api.listAllClusters();
  const statuses = await Promise.all(clusters.map((c) => stack.api.listStatuses(c.id)));
  const haystack = [
    stack.logText(),
    JSON.stringify(statuses),
    JSON.stringify(clusters.map((c) => c.status)),
    stack.tappedMessages().join('\n'),
    JSON.stringify(await stack.executions()),
    JSON.stringify(stack.d),
    traceText(stack.d.traces.dir),
  ].join('\n');
  return leaks(haystack, [...canaries, ...(await defaultPullSecretCanaries(stack))]);
}

/** Every file the trace store holds (trace files and the per-cluster index), as text. */
export function traceText(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}
