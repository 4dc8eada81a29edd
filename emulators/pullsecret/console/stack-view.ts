import * as z from 'zod';

/** What the console reads from stack.json (a StackDescription); management clusters once issue 15 adds them. */
export const stackViewSchema = z.object({
  project: z.string(),
  job: z.string(),
  kubeconfig: z.string(),
  /** The launch queue (absent in a stack.json from before the queue): the fleet panel shows its state. */
  launchQueue: z.string().optional(),
  managementClusters: z
    .record(z.string(), z.object({ kubeconfig: z.string(), endpoint: z.string().optional() }))
    .optional(),
  endpoints: z.object({
    hyperfleetApi: z.string(),
    secretManager: z.string(),
    secretManagerAdmin: z.string(),
    publicCaFile: z.string(),
    operatorMetadata: z.string(),
    kubeApiServer: z.string(),
    cloudRun: z.string(),
    cloudRunAdmin: z.string(),
    cloudTasks: z.string().optional(),
    pubsub: z.string(),
  }),
  topics: z.record(z.string(), z.string()),
  subscriptions: z.record(z.string(), z.object({ deadLetterTopic: z.string().optional() })),
  env: z.record(z.string(), z.string()),
  /** The stack's trace receiver and store (absent in a stack.json from before issue 18). */
  traces: z.object({ endpoint: z.string(), dir: z.string() }).optional(),
});
export type StackView = z.output<typeof stackViewSchema>;

/** name -> kubeconfig of every management cluster; the single `kubeconfig` before issue 15. */
export function managementClusters(stack: StackView): Record<string, string> {
  if (stack.managementClusters && Object.keys(stack.managementClusters).length > 0)
    return Object.fromEntries(
      Object.entries(stack.managementClusters).map(([name, c]) => [name, c.kubeconfig]),
    );
  return { default: stack.kubeconfig };
}
