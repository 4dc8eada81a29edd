import type { TestStack } from './stack';
import { leaks, type Canary } from './canary';

/**
 * Everything the system wrote that a canary must never appear in: every log line, every status
 * body of every cluster, every message on the system's topics, every execution spec, stack.json.
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
  ].join('\n');
  return leaks(haystack, canaries);
}
