import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import * as z from 'zod';
import type { AdminRoute } from '../common/admin-routes';
import { handleAdminRequest } from '../common/admin-routes';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { readJson, sendJson } from '../common/http';
import { RequestLog } from '../common/request-log';
import type { TenancyRules } from './access-rules';
import type { ClusterSpecSchema } from './cluster-spec-schema';
import { Problem } from './problem';
import { serveApi, type RecordedExchange } from './routes';
import { HyperFleetStore, type SimulatedAdapter } from './store';

/** The default required adapters of the HyperFleet API. */
export const DEFAULT_REQUIRED_ADAPTERS = ['validation', 'dns', 'pullsecret', 'hypershift'] as const;

export interface HyperFleetApiEmulatorOptions {
  readonly host?: string;
  readonly port?: number;
  readonly requiredAdapters?: readonly string[];
  readonly simulatedAdapters?: Readonly<Record<string, SimulatedAdapter>>;
  /** Bearer token -> identity; when empty, the API runs without authentication (development mode). */
  readonly tokens?: Readonly<Record<string, string>>;
  /** Tenancy headers required (as in the API's dev config); off when undefined. */
  readonly tenancy?: TenancyRules;
  /** Provider schema for `spec` on create/patch: `any` (default, the core API) or `gcp`. */
  readonly clusterSpecSchema?: ClusterSpecSchema;
  /** Keep request and response bodies (for contract tests; never in the local stack). */
  readonly recordBodies?: boolean;
  readonly now?: () => Date;
  /** Records a SERVER span per API request; default the global tracer (registered by the CLI). */
  readonly tracer?: Tracer;
}

export interface HyperFleetApiEmulator extends RunningEmulator {
  readonly store: HyperFleetStore;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly exchanges: RecordedExchange[];
  /** `http://host:port`; the API lives under /api/hyperfleet/v1. */
  readonly baseUrl: string;
}

const reportSchema = z.object({
  available: z.enum(['True', 'False', 'Unknown']).default('True'),
  hold: z.boolean().optional(),
  finalized: z.boolean().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/**
 * What a simulated adapter reports from the cluster's next generation on (or from its creation),
 * e.g. placement moving a cluster: `{"cluster_name", "adapter": "placement", "data":
 * {"managementCluster": "mgmt-2"}}`. The keys replace the simulation's own; null removes one.
 */
const simulatedDataSchema = z.object({
  cluster_name: z.string().min(1),
  adapter: z.string().regex(/^[a-z0-9-]+$/),
  data: z.record(z.string(), z.unknown()),
});

/** Starts an HTTP server that follows the HyperFleet API contract (see docs/emulators.md). */
export async function startHyperFleetApiEmulator(
  options: HyperFleetApiEmulatorOptions = {},
): Promise<HyperFleetApiEmulator> {
  const store = new HyperFleetStore({
    requiredAdapters: options.requiredAdapters ?? DEFAULT_REQUIRED_ADAPTERS,
    ...(options.simulatedAdapters ? { simulatedAdapters: options.simulatedAdapters } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.clusterSpecSchema ? { clusterSpecSchema: options.clusterSpecSchema } : {}),
  });
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const exchanges: RecordedExchange[] = [];

  // Test control: make another adapter report (e.g. dns turns Available), without auth.
  const admin: AdminRoute = async (req, res, path) => {
    const match = /^\/clusters\/([^/]+)\/adapters\/([a-z0-9-]+)$/.exec(path);
    if (req.method === 'PUT' && match) {
      try {
        const result = store.reportAdapter(
          match[1]!,
          match[2]!,
          reportSchema.parse((await readJson(req)) ?? {}),
        );
        sendJson(res, result.stored ? 201 : 200, result);
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        sendJson(res, error.status, error.body(path), 'application/problem+json');
      }
      return true;
    }
    if (req.method === 'POST' && path === '/holds') {
      const hold = z
        .object({
          cluster_name: z.string(),
          adapter: z.string(),
          available: z.enum(['True', 'False', 'Unknown']),
        })
        .parse(await readJson(req));
      store.holdForNewCluster(hold.cluster_name, hold.adapter, hold.available);
      sendJson(res, 201, hold);
      return true;
    }
    if (req.method === 'POST' && path === '/simulated-settings') {
      const body = z
        .object({ adapter: z.string(), settings: z.record(z.string(), z.unknown()) })
        .parse(await readJson(req));
      const done = store.reconfigureSimulated(body.adapter, body.settings);
      sendJson(res, done ? 200 : 404, done ? body : { error: `${body.adapter} takes no settings` });
      return true;
    }
    if (req.method === 'POST' && path === '/simulated-data') {
      const override = simulatedDataSchema.parse(await readJson(req));
      store.overrideSimulatedData(override.cluster_name, override.adapter, override.data);
      sendJson(res, 201, override);
      return true;
    }
    return false;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      if (await handleAdminRequest(req, res, { faults, requests, extra: admin })) return;
      await serveApi(req, res, {
        store,
        faults,
        requests,
        tokens: options.tokens ?? {},
        ...(options.tenancy ? { tenancy: options.tenancy } : {}),
        ...(options.recordBodies ? { exchanges } : {}),
        ...(options.tracer ? { tracer: options.tracer } : {}),
      });
    })();
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    name: 'hyperfleet-api',
    endpoint: baseUrl,
    baseUrl,
    store,
    faults,
    requests,
    exchanges,
    info: () => ({
      name: 'hyperfleet-api',
      endpoint: baseUrl,
      admin: baseUrl,
      env: { HYPERFLEET_API_BASE_URL: baseUrl },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The header names of the API's dev config, which the local stack enables. */
export const DEV_TENANCY: TenancyRules = {
  systemHeader: 'X-HyperFleet-System',
  orgHeader: 'X-HyperFleet-Org',
};
