import { randomBytes } from 'node:crypto';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';

/** A valid dockerconfigjson with a password generated for this run; it is never printed. */
export function demoPullSecret(): string {
  const password = randomBytes(18).toString('base64url');
  const auth = Buffer.from(`demo-robot:${password}`).toString('base64');
  return JSON.stringify({
    auths: { 'quay.io': { auth, email: 'demo@example.com' }, 'registry.redhat.io': { auth } },
  });
}

/** The GCP cluster spec of the current API, with the pull secret where the adapter reads it. */
export function demoClusterSpec(
  pullSecret: string,
  projectId = 'demo-customer-project',
): Record<string, unknown> {
  return {
    platform: {
      type: 'gcp',
      gcp: { projectID: projectId, region: 'us-central1', zone: 'us-central1-a' },
    },
    release: { version: '4.22.0' },
    pullSecret: { data: pullSecret },
  };
}

/** Creates the demo cluster (the simulated validation, dns and placement adapters report at once). */
export async function createDemoCluster(
  api: HyperFleetClient,
  name = 'demo-cluster',
): Promise<{ id: string; name: string; generation: number }> {
  const cluster = await api.createCluster({
    name,
    labels: { environment: 'local-demo' },
    spec: demoClusterSpec(demoPullSecret()),
  });
  return { id: cluster.id, name: cluster.name, generation: cluster.generation };
}
