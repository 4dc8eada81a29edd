import { freePort } from '../../common/free-port';
import type { ComponentHandle, Components } from './components';
import type { DeliveryMode } from './eventarc-conversion';
import { startRoundRobinProxy } from './round-robin-proxy';

/** `adapter-1`, `adapter-2`…: component, process and log file name of each adapter instance. */
export const adapterInstanceName = (index: number) => `adapter-${index}`;

/** The adapter as Cloud Run runs it when scaled out: several instances behind one endpoint. */
export interface AdapterInstances {
  readonly description: {
    readonly proxy: { readonly endpoint: string; readonly logFile: string };
    readonly instances: readonly {
      readonly name: string;
      readonly endpoint: string;
      readonly port: number;
      readonly logFile: string;
    }[];
  };
  /** Stops every instance, then starts each again on its port (a redeploy; the proxy stays). */
  restartAll(): Promise<void>;
}

/**
 * Starts `count` adapter processes on distinct free ports and the round-robin proxy in front of
 * them (in this process: it stops with the stack and cannot outlive it). Each instance and the
 * proxy are registered in `components`, so stopping the stack stops them all.
 */
export async function startAdapterInstances(options: {
  readonly count: number;
  /** `eventarc`: the proxy converts each push to Eventarc's binary content mode. */
  readonly delivery?: DeliveryMode;
  readonly components: Components;
  /** The log file of a component name. */
  readonly logFile: (name: string) => string;
  /** Starts one instance listening on `port`, logging to `logFile`. */
  readonly start: (port: number, logFile: string) => Promise<ComponentHandle>;
  readonly onProgress?: (component: string, info: Record<string, unknown>) => void;
}): Promise<AdapterInstances> {
  if (!Number.isInteger(options.count) || options.count < 1)
    throw new Error(`adapterInstances must be a whole number of at least 1, got ${options.count}`);
  // Sequentially, remembering what was handed out: a port just released may be offered again.
  const ports: number[] = [];
  while (ports.length < options.count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const instances = ports.map((port, i) => ({
    name: adapterInstanceName(i + 1),
    port,
    endpoint: `http://127.0.0.1:${port}`,
    logFile: options.logFile(adapterInstanceName(i + 1)),
  }));
  // In parallel: each functions-framework start takes a second or more of CPU time.
  // Every started one is registered before a failure is thrown, so the stack's cleanup stops it.
  const started = await Promise.allSettled(instances.map((i) => options.start(i.port, i.logFile)));
  instances.forEach((instance, i) => {
    const result = started[i]!;
    if (result.status === 'rejected') return;
    options.components.add(instance.name, result.value, () =>
      options.start(instance.port, instance.logFile),
    );
    options.onProgress?.(instance.name, { endpoint: `${instance.endpoint}/` });
  });
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;

  const proxyLog = options.logFile('adapter-proxy');
  const proxy = await startRoundRobinProxy({
    targets: instances,
    logFile: proxyLog,
    delivery: options.delivery ?? 'push',
  });
  options.components.add('adapter-proxy', { stop: () => proxy.close() });
  options.onProgress?.('adapter-proxy', {
    endpoint: `${proxy.endpoint}/`,
    instances: instances.map((i) => i.name),
  });

  return {
    description: { proxy: { endpoint: proxy.endpoint, logFile: proxyLog }, instances },
    restartAll: async () => {
      await Promise.all(instances.map((i) => options.components.restart(i.name)));
    },
  };
}
