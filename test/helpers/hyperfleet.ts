import type { HyperFleetApiEmulator } from '../../emulators/hyperfleet-api/server';
import { NoAuth, type AuthHeaderProvider } from '../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import type { CallerIdentity } from '../../shared/hyperfleet/config';
import { RecordingLogger } from './recording-logger';

/** A real HyperFleetClient against the emulator, with fast retries. */
export function hyperFleetClient(
  emulator: Pick<HyperFleetApiEmulator, 'baseUrl'>,
  options: {
    auth?: AuthHeaderProvider;
    timeoutMs?: number;
    retryAttempts?: number;
    logger?: RecordingLogger;
    caller?: CallerIdentity;
    userAgent?: string;
  } = {},
): HyperFleetClient {
  return new HyperFleetClient(
    {
      baseUrl: emulator.baseUrl,
      version: 'v1',
      timeoutMs: options.timeoutMs ?? 2000,
      retryAttempts: options.retryAttempts ?? 3,
      auth: { kind: 'none' },
      caller: options.caller ?? { kind: 'system', header: 'X-HyperFleet-System' },
    },
    {
      auth: options.auth ?? new NoAuth(),
      logger: options.logger ?? new RecordingLogger(),
      sleep: async () => undefined,
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    },
  );
}

/** A GCP-ready cluster spec in the current API shape, with a pull secret. */
export function readySpec(
  pullSecret = JSON.stringify({
    auths: { 'quay.io': { auth: Buffer.from('demo:demo-password').toString('base64') } },
  }),
): Record<string, unknown> {
  return {
    platform: { type: 'gcp', gcp: { projectID: 'demo-project', region: 'us-central1' } },
    pullSecret: { data: pullSecret },
  };
}

/** Creates a cluster with validation, dns and placement Available=True (placement with a namespace). */
export function seedReadyCluster(
  emulator: HyperFleetApiEmulator,
  options: {
    name: string;
    spec?: Record<string, unknown>;
    namespace?: string;
    dns?: 'True' | 'False';
  },
): { id: string; namespace: string } {
  const created = emulator.store.createCluster(
    { kind: 'Cluster', name: options.name, spec: options.spec ?? readySpec() },
    'test@hyperfleet.local',
  ) as { id: string };
  const namespace = options.namespace ?? `clusters-${created.id}`;
  emulator.store.reportAdapter(created.id, 'validation', { available: 'True' });
  emulator.store.reportAdapter(created.id, 'dns', { available: options.dns ?? 'True' });
  emulator.store.reportAdapter(created.id, 'placement', { available: 'True', data: { namespace } });
  return { id: created.id, namespace };
}
