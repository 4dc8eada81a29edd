import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PubSub } from '@google-cloud/pubsub';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import type { FaultRuleInput } from '../../emulators/common/fault-injector';
import type { RequestRecord } from '../../emulators/common/request-log';
import { KubeReader } from '../../emulators/stack/kube-admin';
import { PlacementSimulator } from '../../emulators/stack/placement';
import {
  startStack,
  type Stack,
  type StackDescription,
  type StackOptions,
} from '../../emulators/stack/start-stack';
import { NoAuth } from '../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import type { Cluster } from '../../shared/hyperfleet/schemas';
import { ROOT } from './run-process';
import { RecordingLogger } from './recording-logger';
import { secretManagerClient } from './secret-manager';

type Component = 'secret-manager' | 'kube-apiserver' | 'hyperfleet-api' | 'cloud-run';

/** The whole local system, started for a test file on free ports, with handles for assertions. */
export interface TestStack {
  readonly d: StackDescription;
  readonly api: HyperFleetClient;
  readonly kube: KubeReader;
  readonly sm: SecretManagerServiceClient;
  readonly workDir: string;
  /** Injects a fault into an emulator through its admin API. */
  fault(component: Component, rule: FaultRuleInput): Promise<void>;
  requests(component: Component): Promise<RequestRecord[]>;
  clearRequests(component: Component): Promise<void>;
  /** Every execution the Cloud Run emulator ran (with its env overrides). */
  executions(): Promise<{ name: string; done: boolean; env: Record<string, string> }[]>;
  killNext(count: number, afterMs: number): Promise<void>;
  /** Messages waiting in the three dead-letter topics. */
  deadLetters(): Promise<number>;
  /** The text of every log file of the stack (components and job executions). */
  logText(): string;
  waitFor<T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs?: number,
  ): Promise<T>;
  cluster(id: string): Promise<Cluster | undefined>;
  stop(): Promise<void>;
}

/** Starts the stack exactly as `npm start` does (separate processes), with compressed timings. */
export async function startTestStack(overrides: Partial<StackOptions> = {}): Promise<TestStack> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pullsecret-e2e-'));
  const stack: Stack = await startStack({
    root: ROOT,
    workDir,
    sentinel: { pollInterval: '500ms', notReadyInterval: '1s', readyInterval: '2s' },
    adapterEnv: {
      RETRY_BACKOFF_BASE: '1s',
      RETRY_BACKOFF_MAX: '5s',
      STATUS_HEARTBEAT_INTERVAL: '10s',
    },
    jobTimeoutSeconds: 60,
    ...overrides,
  });
  const d = stack.description;
  const api = new HyperFleetClient(
    {
      baseUrl: d.endpoints.hyperfleetApi,
      version: 'v1',
      timeoutMs: 5000,
      retryAttempts: 3,
      auth: { kind: 'none' },
    },
    { auth: new NoAuth(), logger: new RecordingLogger() },
  );
  const kube = new KubeReader(d.kubeconfig);
  const sm = secretManagerClient(d.endpoints.secretManager);
  const pubsub = new PubSub({
    projectId: d.project,
    apiEndpoint: d.endpoints.pubsub,
    emulatorMode: true,
  });
  const placement = new PlacementSimulator(api, kube);
  let placing = true;
  const placementLoop = (async () => {
    while (placing) {
      await placement.tick().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  const adminBase = (component: Component) =>
    component === 'secret-manager'
      ? d.endpoints.secretManagerAdmin
      : component === 'cloud-run'
        ? d.endpoints.cloudRunAdmin
        : d.endpoints.hyperfleetApi;
  const admin = async (
    component: Component,
    method: string,
    adminPath: string,
    body?: unknown,
  ): Promise<unknown> => {
    if (component === 'kube-apiserver') {
      const answer = await kube.admin(method, adminPath, body);
      if (answer.status >= 300)
        throw new Error(`${method} kube /_emulator${adminPath}: ${answer.status} ${answer.body}`);
      return JSON.parse(answer.body || '{}') as unknown;
    }
    const url = `${adminBase(component)}/_emulator${adminPath}`;
    const response = await fetch(url, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok)
      throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return response.json();
  };

  const waitFor = async <T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs = 30_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await probe();
        if (value !== undefined && value !== false) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}; logs in ${d.logDir}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  return {
    d,
    api,
    kube,
    sm,
    workDir,
    fault: async (component, rule) => {
      await admin(component, 'POST', '/faults', rule);
    },
    requests: async (component) =>
      ((await admin(component, 'GET', '/requests')) as { requests: RequestRecord[] }).requests,
    clearRequests: async (component) => {
      await admin(component, 'DELETE', '/requests');
    },
    executions: async () =>
      (
        (await admin('cloud-run', 'GET', '/executions')) as {
          executions: { name: string; done: boolean; env: Record<string, string> }[];
        }
      ).executions,
    killNext: async (count, afterMs) => {
      await admin('cloud-run', 'POST', '/kill-next', { count, afterMs });
    },
    deadLetters: async () => {
      let total = 0;
      for (const sub of Object.values(d.subscriptions)) {
        const inspect = pubsub.subscription(`${sub.deadLetterTopic.split('/').pop()}-inspect`);
        total += await new Promise<number>((resolve) => {
          let count = 0;
          const onMessage = (message: { ack: () => void }) => {
            count++;
            message.ack();
          };
          inspect.on('message', onMessage);
          setTimeout(() => {
            inspect.removeListener('message', onMessage);
            void inspect.close().then(() => resolve(count));
          }, 1500);
        });
      }
      return total;
    },
    logText: () => {
      const files = [d.logDir, path.join(d.logDir, 'jobs')].flatMap((dir) =>
        fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.log'))
          .map((f) => path.join(dir, f)),
      );
      return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    },
    waitFor,
    cluster: (id) => api.findCluster(id),
    stop: async () => {
      placing = false;
      await placementLoop;
      await sm.close();
      await pubsub.close();
      await stack.stop();
    },
  };
}
