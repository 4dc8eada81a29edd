import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { createDemoCluster, demoPullSecret } from '../stack/demo';
import type { KubeReader } from '../../common/kube-admin';
import type { StackView } from './stack-view';

/** Faults a developer would otherwise inject with curl (docs/local-stack.md). */
export const FAULT_PRESETS = {
  'secret-manager-unavailable': 'Secret Manager answers UNAVAILABLE to the next 2 AddSecretVersion',
  'hyperfleet-503': 'HyperFleet answers 503 to the next 3 cluster reads',
  'kill-next-execution': 'the next job execution is killed 300 ms after it starts',
} as const;
export type FaultPreset = keyof typeof FAULT_PRESETS;

const ADAPTER = /^[a-z0-9-]{1,63}$/;

/** The console's actions, over the stack's own APIs (the same calls as the curl lines of docs/emulators.md). */
export class ConsoleActions {
  constructor(
    private readonly stack: StackView,
    private readonly tenant: HyperFleetClient,
    private readonly kube: Record<string, KubeReader>,
  ) {}

  /** A demo cluster with a generated pull secret (never shown). */
  async createCluster(): Promise<{ id: string; name: string }> {
    const name = `demo-${Date.now().toString(36)}`;
    const { id } = await createDemoCluster(this.tenant, name);
    return { id, name };
  }

  /** A new generated pull secret: a new generation, one new Secret Manager version. */
  async changePullSecret(id: string): Promise<{ generation: number }> {
    const cluster = await this.tenant.patchCluster(id, {
      spec: { pullSecret: { data: demoPullSecret() } },
    });
    return { generation: cluster.generation };
  }

  async deleteCluster(id: string): Promise<void> {
    await this.tenant.deleteCluster(id);
  }

  /** Holds a simulated adapter at Available=False (it stops following generations), or releases it. */
  async holdAdapter(id: string, adapter: string, hold: boolean): Promise<void> {
    // hypershift is its own simulator process; only the HyperFleet emulator's simulations hold.
    if (!ADAPTER.test(adapter) || adapter === 'pullsecret' || adapter === 'hypershift')
      throw new Error(`${adapter} is not a simulated adapter of the HyperFleet emulator`);
    await this.call(
      'PUT',
      `${this.stack.endpoints.hyperfleetApi}/_emulator/clusters/${encodeURIComponent(id)}/adapters/${adapter}`,
      hold ? { available: 'False', hold: true } : { available: 'True', hold: false },
    );
  }

  async injectFault(preset: FaultPreset): Promise<void> {
    const e = this.stack.endpoints;
    if (preset === 'secret-manager-unavailable')
      await this.call('POST', `${e.secretManagerAdmin}/_emulator/faults`, {
        match: 'AddSecretVersion',
        status: 'UNAVAILABLE',
        count: 2,
      });
    else if (preset === 'hyperfleet-503')
      await this.call('POST', `${e.hyperfleetApi}/_emulator/faults`, {
        match: 'GET /api/hyperfleet/v1/clusters',
        status: 503,
        count: 3,
      });
    else await this.call('POST', `${e.cloudRunAdmin}/_emulator/kill-next`, { afterMs: 300 });
  }

  async clearFaults(): Promise<void> {
    const e = this.stack.endpoints;
    for (const base of [e.hyperfleetApi, e.secretManagerAdmin, e.cloudRunAdmin])
      await this.call('DELETE', `${base}/_emulator/faults`);
    for (const kube of Object.values(this.kube)) await kube.admin('DELETE', '/faults');
  }

  /** Faults still pending in every emulator. */
  async faults(): Promise<
    { component: string; match: string; status: unknown; remaining: number }[]
  > {
    const e = this.stack.endpoints;
    const http: [string, string][] = [
      ['hyperfleet-api', e.hyperfleetApi],
      ['secret-manager', e.secretManagerAdmin],
      ['cloud-run', e.cloudRunAdmin],
    ];
    const lists = await Promise.all([
      ...http.map(async ([component, base]) => {
        const response = await fetch(`${base}/_emulator/faults`);
        return { component, body: response.ok ? await response.text() : '{}' };
      }),
      ...Object.entries(this.kube).map(async ([name, kube]) => ({
        component: `kube ${name}`,
        body: (await kube.admin('GET', '/faults')).body,
      })),
    ]);
    return lists.flatMap(({ component, body }) => {
      const parsed = JSON.parse(body || '{}') as {
        faults?: { match: string; status: unknown; remaining: number }[];
      };
      return (parsed.faults ?? []).map((f) => ({
        component,
        match: f.match,
        status: f.status,
        remaining: f.remaining,
      }));
    });
  }

  private async call(method: string, url: string, body?: unknown): Promise<void> {
    const response = await fetch(url, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok)
      throw new Error(
        `${method} ${new URL(url).pathname}: HTTP ${response.status} ${await response.text()}`,
      );
  }
}
