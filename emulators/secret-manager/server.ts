import * as grpc from '@grpc/grpc-js';
import { startAdminServer } from '../common/admin-server';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import {
  bindServer,
  tlsEndpoint,
  shutdownServer,
  targetOf,
  unaryHandlers,
  type UnaryHandler,
} from '../common/grpc-server';
import { loadProtos, lookupService } from '../common/protos';
import type { ServingCertificate } from '../common/certificates';
import { RequestLog } from '../common/request-log';
import { StateFile } from '../common/state-file';
import { projectNumbers } from './project-numbers';
import { SecretManagerState, type ProtoSecret, type SecretManagerSnapshot } from './state';
import type { AnsweredVersion, SecretEventType } from './notifications/event-message';
import { pubsubNotifier } from './notifications/pubsub-notifier';
import { SecretEvents } from './notifications/secret-events';
import { checkTopics } from './notifications/topics';
import { iamAdminRoutes } from '../common/iam/iam-admin';
import type { IamConfigInput } from '../common/iam/iam-config';
import { IamModel } from '../common/iam/iam-model';
import { handleResourceManager } from './iam/resource-manager';
import { handleOrgPolicy, OrgPolicies, orgPolicyAdminRoutes } from './org-policy';
import { authorizationOf, guardHandlers } from '../common/iam/iam-guard';
import {
  secretManagerGuard,
  secretManagerPermissions,
  testIamPermissions,
} from './iam/secret-manager-iam';

export interface SecretManagerEmulatorOptions {
  readonly host?: string;
  /** gRPC port; 0 or absent picks a free one. */
  readonly port?: number;
  readonly adminPort?: number;
  /** Keep state across restarts in this directory; in memory when absent. */
  readonly dataDir?: string;
  /**
   * Allow policies (iam/iam-config.ts). With them, every call that carries a bearer token is
   * authorized as Secret Manager authorizes it (the caller known from `googleTokenInfoUrl`, as
   * Google knows a token), and the admin port also serves Resource Manager's
   * projects.testIamPermissions. Calls without credentials stay the emulator's own.
   */
  readonly iam?: IamConfigInput;
  /** Where bearer tokens are looked up (the metadata server's /tokeninfo); required with `iam`. */
  readonly googleTokenInfoUrl?: string;
  /**
   * Refuse calls without credentials (UNAUTHENTICATED, as Google does) instead of taking them as
   * the emulator's own: what the local stack always runs with (LocalStack's ENFORCE_IAM is the
   * anchor). Needs `iam`.
   */
  readonly enforceIam?: boolean;
  /**
   * Serve TLS with this certificate: what lets Google client libraries send their call
   * credentials (grpc-js sends tokens only over a secure channel), as to Google.
   */
  readonly certificate?: ServingCertificate;
  /** The clock of create times and expirations (tests move it past a secret's expire_time). */
  readonly now?: () => Date;
  /**
   * The Pub/Sub emulator (host:port) Secret.topics notifications are published to. Without it, a
   * secret with topics is refused (FAILED_PRECONDITION) rather than its notifications dropped.
   */
  readonly pubsubEmulatorHost?: string;
}

/** A running Secret Manager emulator; `faults`, `requests` and `state` are for in-process tests. */
export interface SecretManagerEmulator extends RunningEmulator {
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly state: SecretManagerState;
  /** Organization policies set on projects (org-policy.ts); served with `iam` only. */
  readonly orgPolicies: OrgPolicies;
  readonly adminUrl: string;
  /** The allow policies, when configured (tests add and remove bindings here or over the admin API). */
  readonly iam?: IamModel;
  /** Secret.topics notifications: `idle()` resolves once every one handed over so far is published. */
  readonly notifications: Pick<SecretEvents, 'idle'>;
}

type Request = Record<string, unknown>;
/** The secret a version's name belongs to (`projects/P/secrets/S/versions/V` → `projects/P/secrets/S`). */
const secretOf = (name: string | undefined) => name?.replace(/\/versions\/[^/]*$/, '');
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/**
 * Starts a gRPC server implementing google.cloud.secretmanager.v1.SecretManagerService from the
 * .proto files inside @google-cloud/secret-manager, so the real client talks to it unchanged.
 */
export async function startSecretManagerEmulator(
  options: SecretManagerEmulatorOptions = {},
): Promise<SecretManagerEmulator> {
  const host = options.host ?? '127.0.0.1';
  const stateFile = options.dataDir
    ? new StateFile<SecretManagerSnapshot>(options.dataDir)
    : undefined;
  const faults = new FaultInjector();
  const requests = new RequestLog();
  if (options.iam && !options.googleTokenInfoUrl)
    throw new Error('the Secret Manager emulator needs googleTokenInfoUrl to check IAM');
  if (options.enforceIam && !options.iam)
    throw new Error('the Secret Manager emulator needs iam to enforce it');
  const model = options.iam ? new IamModel(options.iam) : undefined;
  // Names answer with project numbers (state.ts): the IAM configuration's, else derived ones.
  const numberOf = projectNumbers(model ? (project) => model.projectNumber(project) : undefined);
  const now = options.now ?? (() => new Date());
  const notifier = options.pubsubEmulatorHost
    ? pubsubNotifier(options.pubsubEmulatorHost)
    : undefined;
  const events = new SecretEvents(notifier, numberOf, now);
  const state = new SecretManagerState(stateFile?.read(), now, numberOf, (secret) =>
    events.expired(secret),
  );
  const iam =
    model && options.googleTokenInfoUrl
      ? secretManagerGuard(model, options.googleTokenInfoUrl, options.enforceIam ?? false)
      : undefined;
  const persist = <T>(result: T): T => {
    stateFile?.write(state.snapshot());
    return result;
  };

  const protos = loadProtos(
    ['google/cloud/secretmanager/v1/service.proto'],
    ['@google-cloud/secret-manager'],
  );
  /** Every method: IAM first, then Secret Manager's own rules. */
  const guarded = (handlers: Record<string, UnaryHandler>): Record<string, UnaryHandler> =>
    guardHandlers(handlers, iam, secretManagerPermissions);
  /** A version's change, notified to its secret's topics (checked first: secret-events.ts). */
  const versionChange = (
    type: SecretEventType,
    secretName: string | undefined,
    change: () => AnsweredVersion,
  ) => {
    const secret = state.getSecret(secretName);
    events.guard(secret);
    const version = persist(change());
    events.versionChanged(type, secret, version);
    return version;
  };
  const secretExists = (name: string) => {
    try {
      state.getSecret(name);
      return true;
    } catch {
      return false;
    }
  };
  const server = new grpc.Server();
  server.addService(
    lookupService(protos, 'google.cloud.secretmanager.v1.SecretManagerService'),
    unaryHandlers(
      guarded({
        // The TOPIC_CONFIGURED test publish comes first: a topic that cannot be published to
        // refuses the change before it is made (notifications/secret-events.ts).
        CreateSecret: async (r: Request) => {
          const secret = r.secret as ProtoSecret | undefined;
          await events.configure(str(r.parent) ?? '', checkTopics(secret?.topics));
          const created = persist(state.createSecret(str(r.parent), str(r.secret_id), secret));
          events.secretChanged('SECRET_CREATE', created);
          return created;
        },
        GetSecret: (r: Request) => state.getSecret(str(r.name)),
        UpdateSecret: async (r: Request) => {
          const secret = r.secret as ProtoSecret | undefined;
          const paths = (r.update_mask as { paths?: string[] } | undefined)?.paths ?? [];
          const current = state.getSecret(secret?.name);
          if (paths.includes('topics'))
            await events.configure(current.name, checkTopics(secret?.topics));
          else events.guard(current);
          const updated = persist(state.updateSecret(secret, paths));
          events.secretChanged('SECRET_UPDATE', updated);
          return updated;
        },
        DeleteSecret: (r: Request) => {
          events.guard(state.getSecret(str(r.name)));
          const deleted = state.deleteSecret(str(r.name), str(r.etag));
          events.secretChanged('SECRET_DELETE', persist(deleted));
          return {};
        },
        ListSecrets: (r: Request) =>
          state.listSecrets(str(r.parent), str(r.filter), num(r.page_size), str(r.page_token)),
        AddSecretVersion: (r: Request) =>
          versionChange('SECRET_VERSION_ADD', str(r.parent), () =>
            state.addVersion(str(r.parent), r.payload as { data?: Buffer; data_crc32c?: string }),
          ),
        AccessSecretVersion: (r: Request) => state.accessVersion(str(r.name)),
        GetSecretVersion: (r: Request) => state.getVersion(str(r.name)),
        ListSecretVersions: (r: Request) =>
          state.listVersions(str(r.parent), str(r.filter), num(r.page_size), str(r.page_token)),
        DisableSecretVersion: (r: Request) =>
          versionChange('SECRET_VERSION_DISABLE', secretOf(str(r.name)), () =>
            state.setVersionState(str(r.name), 'DISABLED', str(r.etag)),
          ),
        EnableSecretVersion: (r: Request) =>
          versionChange('SECRET_VERSION_ENABLE', secretOf(str(r.name)), () =>
            state.setVersionState(str(r.name), 'ENABLED', str(r.etag)),
          ),
        DestroySecretVersion: (r: Request) =>
          versionChange('SECRET_VERSION_DESTROY', secretOf(str(r.name)), () =>
            state.setVersionState(str(r.name), 'DESTROYED', str(r.etag)),
          ),
        TestIamPermissions: (r: Request, metadata: grpc.Metadata) =>
          iam
            ? testIamPermissions(iam, r, authorizationOf(metadata), secretExists)
            : {
                permissions: secretExists(str(r.resource) ?? '')
                  ? ((r.permissions as string[] | undefined) ?? [])
                  : [],
              },
      }),
      {
        faults,
        requests,
        // CreateSecret names its secret by parent and secret_id: logged (and matched by a fault's
        // `target`) as the secret it creates, so one cluster's create can be told from another's.
        target: (r) =>
          typeof r.parent === 'string' && typeof r.secret_id === 'string'
            ? `${r.parent}/secrets/${r.secret_id}`
            : targetOf(r),
      },
    ),
  );
  const port = await bindServer(server, host, options.port ?? 0, options.certificate);
  const orgPolicies = new OrgPolicies();
  const policyRoutes = orgPolicyAdminRoutes(orgPolicies);
  const iamRoutes = model ? iamAdminRoutes(model) : undefined;
  const admin = await startAdminServer(host, options.adminPort ?? 0, {
    faults,
    requests,
    ...(iamRoutes
      ? {
          extra: async (req, res, path) =>
            (await policyRoutes(req, res, path)) || iamRoutes(req, res, path),
        }
      : {}),
    ...(model && options.googleTokenInfoUrl
      ? {
          api: async (req, res) => {
            const tokenInfoUrl = options.googleTokenInfoUrl as string;
            return (
              (await handleResourceManager(req, res, model, tokenInfoUrl)) ||
              handleOrgPolicy(req, res, { policies: orgPolicies, model, tokenInfoUrl })
            );
          },
        }
      : {}),
  });
  // Over TLS the endpoint is named as its certificate names it: a client then sends that name
  // for SNI and checks it (an IP address as TLS ServerName is refused by RFC 6066, and Node warns).
  const endpoint = tlsEndpoint(host, port, options.certificate !== undefined);
  return {
    name: 'secret-manager',
    endpoint,
    adminUrl: admin.url,
    faults,
    requests,
    state,
    orgPolicies,
    ...(model ? { iam: model } : {}),
    notifications: events,
    info: () => ({
      name: 'secret-manager',
      endpoint,
      admin: admin.url,
      env: {
        SECRET_MANAGER_EMULATOR_HOST: endpoint,
        // Resource Manager's projects.testIamPermissions is served on the admin port.
        ...(model ? { RESOURCE_MANAGER_EMULATOR_HOST: admin.url.replace(/^http:\/\//, '') } : {}),
        // The Org Policy API's getEffectivePolicy too (org-policy.ts).
        ...(model ? { ORG_POLICY_EMULATOR_HOST: admin.url.replace(/^http:\/\//, '') } : {}),
      },
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.pubsubEmulatorHost ? { pubsub: options.pubsubEmulatorHost } : {}),
    }),
    stop: async () => {
      await shutdownServer(server);
      await admin.close();
      await notifier?.close();
    },
  };
}
