import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import type { AdminRoute } from '../common/admin-routes';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { readJson, sendJson } from '../common/http';
import { iamAdminRoutes } from '../common/iam/iam-admin';
import type { IamConfigInput } from '../common/iam/iam-config';
import { RequestLog } from '../common/request-log';
import { Authenticator } from './authentication';
import { clusterAuthorizer } from './authorizer';
import { generateServingCertificate, type ServingCertificate } from './certificates';
import { seedObjects } from './generic/seed';
import { GkeIam } from './gke-iam';
import { writeKubeconfig } from './kubeconfig';
import type { NamespaceController } from './namespace-termination';
import {
  grantObjects,
  GRANT_LABEL,
  grantLabelValue,
  rbacTableSchema,
  type RbacTable,
} from './rbac';
import { RBAC_TYPES } from './rbac/rbac-types';
import { route } from './router';
import { KubeStore } from './store';

export interface KubeApiServerOptions {
  readonly host?: string;
  readonly port?: number;
  /** Namespaces that exist from the start. */
  readonly namespaces?: readonly string[];
  /**
   * `/apis` objects created at start, in order (e.g. a CustomResourceDefinition, then a
   * ValidatingAdmissionPolicy and its binding); namespaced ones need their namespace in `namespaces`.
   */
  readonly resources?: readonly Record<string, unknown>[];
  /**
   * Static tokens (token -> user, groups and convenience grants, which become RBAC objects); an
   * admin token in system:masters is always added.
   */
  readonly rbac?: RbacTable;
  /**
   * Authenticate other bearer tokens as Google access tokens, as GKE does, by asking this
   * token-info URL (the local metadata server's `/tokeninfo`, shaped like Google's).
   */
  readonly googleTokenInfoUrl?: string;
  /**
   * GKE's IAM layer (gke-iam.ts), for Google identities: the allow policies (the common IAM
   * configuration, emulators/common/iam/iam-config.ts) and the cluster's resource name
   * `projects/P/locations/L/clusters/C`. A Google identity then needs container.clusters.get on
   * the cluster to be let in, and a role's container.* permission allows what RBAC does not.
   * Needs googleTokenInfoUrl. Absent: RBAC alone, as a cluster outside GKE.
   */
  readonly iam?: { readonly config: IamConfigInput; readonly cluster: string };
  /**
   * The serving certificate; default: a private CA generated at start (a GKE IP endpoint's
   * cluster CA). Give one from another CA to serve as a DNS endpoint with a "public" certificate.
   */
  readonly certificate?: ServingCertificate;
  /** Where the certificates and the kubeconfig are written; a temporary folder when absent. */
  readonly stateDir?: string;
}

/** A running Kubernetes API emulator. */
export interface KubeApiServerEmulator extends RunningEmulator {
  readonly kubeconfigPath: string;
  readonly adminToken: string;
  readonly caPem: string;
  readonly store: KubeStore;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  /** GKE's IAM layer, when started with one (its model: the allow policies tests change). */
  readonly iam?: GkeIam;
  /**
   * The namespace controller: `hold(name)` keeps a deleted namespace Terminating with its contents,
   * `release(name)` lets it go (namespace-termination.ts).
   */
  readonly namespaceController: NamespaceController;
  /** Adds static tokens and replaces their users' convenience grants (RBAC objects). */
  grant(table: RbacTable): void;
  /** TLS connections accepted so far (tests check that clients reuse theirs). */
  connections(): number;
}

/** The namespaces the API server itself creates in every cluster. */
export const SYSTEM_NAMESPACES = [
  'default',
  'kube-system',
  'kube-public',
  'kube-node-lease',
] as const;

/**
 * Starts an HTTPS server emulating the core/v1 namespaces and secrets API of a kube-apiserver,
 * with a certificate generated at start, bearer-token RBAC, and a kubeconfig for kubectl and
 * @kubernetes/client-node.
 */
export async function startKubeApiServerEmulator(
  options: KubeApiServerOptions = {},
): Promise<KubeApiServerEmulator> {
  const host = options.host ?? '127.0.0.1';
  const stateDir = options.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kube-emulator-'));
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const certificate = options.certificate ?? generateServingCertificate(stateDir);
  const adminToken = randomBytes(24).toString('hex');
  if (options.iam && !options.googleTokenInfoUrl)
    throw new Error(
      "GKE's IAM layer needs Google identities: give googleTokenInfoUrl (--google-token-info) with the IAM configuration",
    );
  const iam = options.iam ? new GkeIam(options.iam.config, options.iam.cluster) : undefined;
  const authenticator = new Authenticator(options.googleTokenInfoUrl);
  authenticator.addStaticToken(adminToken, { user: 'emulator-admin', groups: ['system:masters'] });
  const store = new KubeStore();
  // Every cluster has the system namespaces (kube-apiserver creates them at start), so a client
  // finds `default` and `kube-system` here as it would on GKE.
  for (const namespace of new Set([...SYSTEM_NAMESPACES, ...(options.namespaces ?? [])]))
    store.createNamespace({ metadata: { name: namespace } }, 'emulator-seed');
  seedObjects(store, options.resources ?? []);
  const grant = (table: RbacTable) => {
    for (const [token, entry] of Object.entries(rbacTableSchema.parse(table))) {
      authenticator.addStaticToken(token, { user: entry.user, groups: entry.groups ?? [] });
      replaceGrants(store, entry.user, grantObjects(entry.user, entry.rules));
    }
  };
  grant(options.rbac ?? {});
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const authorize = clusterAuthorizer(store.objects, iam);
  const iamRoutes = iam ? iamAdminRoutes(iam.model) : undefined;

  // Test control: seed namespaces, hold a namespace's termination and change RBAC without a token,
  // and on a GKE cluster its IAM (/_emulator/iam, as gcloud would; see docs/emulators.md).
  const admin: AdminRoute = async (req, res, adminPath) => {
    if (iamRoutes && (await iamRoutes(req, res, adminPath))) return true;
    const hold = /^\/namespaces\/([^/]+)\/hold$/.exec(adminPath);
    if (hold && (req.method === 'POST' || req.method === 'DELETE')) {
      const name = decodeURIComponent(hold[1]!);
      if (req.method === 'POST') store.namespaceController.hold(name);
      else store.namespaceController.release(name);
      sendJson(res, 200, { held: store.namespaceController.held() });
      return true;
    }
    if (req.method === 'POST' && adminPath === '/namespaces') {
      const body = z.object({ name: z.string() }).parse(await readJson(req));
      if (store.hasNamespace(body.name)) sendJson(res, 200, store.getNamespace(body.name));
      else
        sendJson(
          res,
          201,
          store.createNamespace({ metadata: { name: body.name } }, 'emulator-seed'),
        );

      return true;
    }
    if (req.method === 'POST' && adminPath === '/rbac') {
      const table = rbacTableSchema.parse(await readJson(req));
      grant(table);
      sendJson(res, 200, { users: Object.values(table).map((i) => i.user) });
      return true;
    }
    return false;
  };

  let serverAddress = '';
  const server = https.createServer(
    { key: certificate.keyPem, cert: certificate.certPem },
    (req, res) => {
      void route(req, res, {
        store,
        authenticator,
        authorize,
        ...(iam ? { iam } : {}),
        faults,
        requests,
        serverAddress,
        admin,
      });
    },
  );
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  serverAddress = `${host}:${port}`;
  const endpoint = `https://${serverAddress}`;
  const kubeconfigPath = path.join(stateDir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, endpoint, certificate.caPem, adminToken);
  return {
    name: 'kube-apiserver',
    endpoint,
    kubeconfigPath,
    adminToken,
    caPem: certificate.caPem,
    store,
    faults,
    requests,
    ...(iam ? { iam } : {}),
    namespaceController: store.namespaceController,
    grant,
    connections: () => connections,
    info: () => ({
      name: 'kube-apiserver',
      endpoint,
      kubeconfig: kubeconfigPath,
      admin: endpoint,
      env: { KUBECONFIG: kubeconfigPath },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Deletes a user's earlier convenience grants and stores the new ones (namespaces made as needed). */
function replaceGrants(store: KubeStore, user: string, objects: Record<string, unknown>[]): void {
  for (const type of RBAC_TYPES)
    for (const old of store.objects.all(type)) {
      const meta = old.metadata as {
        name: string;
        namespace?: string;
        labels?: Record<string, string>;
      };
      if (meta.labels?.[GRANT_LABEL] !== grantLabelValue(user)) continue;
      store.objects.delete(
        { type, version: 'v1', namespace: meta.namespace ?? '' },
        meta.name,
        {},
        false,
      );
    }
  for (const object of objects) {
    const namespace = (object.metadata as { namespace?: string }).namespace;
    if (namespace && !store.hasNamespace(namespace))
      store.createNamespace({ metadata: { name: namespace } }, 'emulator-seed');
  }
  seedObjects(store, objects);
}
