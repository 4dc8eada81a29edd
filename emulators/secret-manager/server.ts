import * as grpc from '@grpc/grpc-js';
import { startAdminServer } from '../common/admin-server';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { bindServer, shutdownServer, unaryHandlers } from '../common/grpc-server';
import { loadProtos, lookupService } from '../common/protos';
import { RequestLog } from '../common/request-log';
import { StateFile } from '../common/state-file';
import { SecretManagerState, type ProtoSecret, type SecretManagerSnapshot } from './state';

export interface SecretManagerEmulatorOptions {
  readonly host?: string;
  /** gRPC port; 0 or absent picks a free one. */
  readonly port?: number;
  readonly adminPort?: number;
  /** Keep state across restarts in this directory; in memory when absent. */
  readonly dataDir?: string;
}

/** A running Secret Manager emulator; `faults`, `requests` and `state` are for in-process tests. */
export interface SecretManagerEmulator extends RunningEmulator {
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly state: SecretManagerState;
  readonly adminUrl: string;
}

type Request = Record<string, unknown>;
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
  const state = new SecretManagerState(stateFile?.read());
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const persist = <T>(result: T): T => {
    stateFile?.write(state.snapshot());
    return result;
  };

  const protos = loadProtos(
    ['google/cloud/secretmanager/v1/service.proto'],
    ['@google-cloud/secret-manager'],
  );
  const server = new grpc.Server();
  server.addService(
    lookupService(protos, 'google.cloud.secretmanager.v1.SecretManagerService'),
    unaryHandlers(
      {
        CreateSecret: (r: Request) =>
          persist(
            state.createSecret(
              str(r.parent),
              str(r.secret_id),
              r.secret as ProtoSecret | undefined,
            ),
          ),
        GetSecret: (r: Request) => state.getSecret(str(r.name)),
        UpdateSecret: (r: Request) =>
          persist(
            state.updateSecret(
              r.secret as ProtoSecret | undefined,
              ((r.update_mask as { paths?: string[] } | undefined)?.paths ?? []) as string[],
            ),
          ),
        DeleteSecret: (r: Request) => {
          state.deleteSecret(str(r.name), str(r.etag));
          return persist({});
        },
        ListSecrets: (r: Request) =>
          state.listSecrets(str(r.parent), str(r.filter), num(r.page_size), str(r.page_token)),
        AddSecretVersion: (r: Request) =>
          persist(
            state.addVersion(str(r.parent), r.payload as { data?: Buffer; data_crc32c?: string }),
          ),
        AccessSecretVersion: (r: Request) => state.accessVersion(str(r.name)),
        GetSecretVersion: (r: Request) => state.getVersion(str(r.name)),
        ListSecretVersions: (r: Request) =>
          state.listVersions(str(r.parent), str(r.filter), num(r.page_size), str(r.page_token)),
        DisableSecretVersion: (r: Request) =>
          persist(state.setVersionState(str(r.name), 'DISABLED', str(r.etag))),
        EnableSecretVersion: (r: Request) =>
          persist(state.setVersionState(str(r.name), 'ENABLED', str(r.etag))),
        DestroySecretVersion: (r: Request) =>
          persist(state.setVersionState(str(r.name), 'DESTROYED', str(r.etag))),
      },
      { faults, requests },
    ),
  );
  const port = await bindServer(server, host, options.port ?? 0);
  const admin = await startAdminServer(host, options.adminPort ?? 0, { faults, requests });
  const endpoint = `${host}:${port}`;
  return {
    name: 'secret-manager',
    endpoint,
    adminUrl: admin.url,
    faults,
    requests,
    state,
    info: () => ({
      name: 'secret-manager',
      endpoint,
      admin: admin.url,
      env: { SECRET_MANAGER_EMULATOR_HOST: endpoint },
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }),
    stop: async () => {
      await shutdownServer(server);
      await admin.close();
    },
  };
}
