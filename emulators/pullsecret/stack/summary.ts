import path from 'node:path';
import { LOCAL_ORG } from '../hyperfleet/local-hyperfleet-client';
import type { StackDescription } from './stack-description';

/** What the summary needs about the stack (stack.json's fields). */
type SummaryStack = Pick<
  StackDescription,
  'kubeconfig' | 'workDir' | 'logDir' | 'endpoints' | 'env' | 'managementClusters'
>;

/** Where the demo cluster's pull secret landed: our status data, as HyperShift reads it. */
export interface ConvergedCluster {
  readonly id: string;
  readonly managementCluster: string;
  readonly namespace: string;
  readonly secretName: string;
}

/**
 * The lines printed once the demo cluster converged. With `--once` the stack stops right after,
 * so it names no command to look at it (they would point at stopped components); otherwise it
 * says where to look: the console, kubectl, the API, stack.json and the logs.
 */
export function convergedSummary(
  d: SummaryStack,
  cluster: ConvergedCluster,
  elapsedMs: number,
  options: { once: boolean; consoleUrl?: string; cwd?: string },
): string {
  const cwd = options.cwd ?? process.cwd();
  const rel = (file: string) => path.relative(cwd, file) || file;
  const converged = `Converged in ${(elapsedMs / 1000).toFixed(1)} s: Reconciled=True (Ready). The Secret Manager version exists, the Kubernetes Secret is in ${cluster.managementCluster} ${cluster.namespace}/${cluster.secretName}, and the HostedCluster beside it names it (spec.pullSecret.name).`;
  // Traces stay after the stack stops, so `npm run trace` works with --once too.
  const trace = `npm run -s trace -- ${cluster.id}`;
  if (options.once)
    return [
      '',
      converged,
      `Logs stay in ${rel(d.logDir)} after the stack stops; ${trace} still draws its reconcile as a waterfall.`,
      '',
    ].join('\n');
  const kubeconfig = rel(
    d.managementClusters[cluster.managementCluster]?.kubeconfig ?? d.kubeconfig,
  );
  const token = `$(cat ${rel(d.env.HYPERFLEET_API_AUTH_TOKEN_PATH ?? '')})`;
  const api = `${d.endpoints.hyperfleetApi}/api/hyperfleet/v1/clusters/${cluster.id}`;
  return [
    '',
    converged,
    '',
    ...(options.consoleUrl ? [`Console: ${options.consoleUrl}`, ''] : []),
    'Look for yourself:',
    `  kubectl --kubeconfig ${kubeconfig} get secret -n ${cluster.namespace} ${cluster.secretName} -o yaml`,
    `  kubectl --kubeconfig ${kubeconfig} get hostedclusters -A`,
    // The local API runs with JWT and tenancy on, like its dev config.
    `  curl -s -H "Authorization: Bearer ${token}" -H 'X-HyperFleet-System: true' ${api}/statuses`,
    `  curl -s -H "Authorization: Bearer ${token}" -H 'X-HyperFleet-Org: ${LOCAL_ORG}' ${api}`,
    `  npm run -s wait -- ${cluster.id} --condition Ready --timeout 2m   # waits for a condition`,
    `  ${trace}      # its latest reconcile as a waterfall: services, spans, timings, decision`,
    // The doctor runs as an execution of the job: its environment, its identity, its rights.
    `  npm run -s doctor -- --all-projects   # checks the deployment end to end as the job (docs/operations.md, "pull-secret doctor")`,
    `  cat ${rel(path.join(d.workDir, 'stack.json'))}      # every endpoint, managementClusters, the environment for clients`,
    `  ls ${rel(d.logDir)}                      # one log per component, jobs/ per execution`,
    '',
  ].join('\n');
}
