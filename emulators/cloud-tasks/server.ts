import * as grpc from '@grpc/grpc-js';
import { startAdminServer } from '../common/admin-server';
import { eitherRoute } from '../common/admin-routes';
import type { ServingCertificate } from '../common/certificates';
import type { RunningEmulator } from '../common/emulator';
import { FaultInjector } from '../common/fault-injector';
import { GrpcError } from '../common/grpc-error';
import {
  bindServer,
  tlsEndpoint,
  shutdownServer,
  unaryHandlers,
  type UnaryHandler,
} from '../common/grpc-server';
import { iamAdminRoutes } from '../common/iam/iam-admin';
import { guardHandlers, iamGuardFor, type GoogleIamOptions } from '../common/iam/iam-guard';
import type { IamModel } from '../common/iam/iam-model';
import { loadProtos, lookupService } from '../common/protos';
import { RequestLog } from '../common/request-log';
import { cloudTasksAdmin } from './admin';
import { queueOfSeed, type QueueSeed } from './config';
import { Dispatcher, type DispatchMode } from './dispatcher';
import { opaqueToken, type MintToken } from './http-attempt';
import { cloudTasksDenied, cloudTasksPermissions } from './iam/rpc-permissions';
import { QueueBook } from './queue-book';
import { renderQueue, renderTask } from './records';
import { TASK_TOMBSTONE_MS } from './rules';
import { decode, queueSchema, taskSchema, updateMaskSchema, viewOf } from './wire';

/**
 * `iam`, `googleTokenInfoUrl`, `enforceIam` (GoogleIamOptions): every call with a bearer token is
 * authorized as Cloud Tasks authorizes it (iam/rpc-permissions.ts). Dispatch is not a call: its
 * tasks carry their own OAuth or OIDC token to their target.
 */
export interface CloudTasksEmulatorOptions extends GoogleIamOptions {
  readonly host?: string;
  /** gRPC port; 0 or absent picks a free one. */
  readonly port?: number;
  readonly adminPort?: number;
  /** Queues created at start (the local stack's launch queue). */
  readonly queues?: readonly QueueSeed[];
  /** How long a deleted or finished task's name stays taken: ~1 h in Cloud Tasks (tests shorten it). */
  readonly taskTombstoneMs?: number;
  /** The clock of schedule times, backoffs, rate tokens and tombstones; Date.now by default. */
  readonly now?: () => number;
  /** `auto` (default): dispatch in real time by timers; `manual`: only on `tick()`/`dispatchDue()`. */
  readonly dispatch?: DispatchMode;
  /** The access token of an OAuthToken task (default: an opaque token naming the account, http-attempt.ts). */
  readonly mintToken?: MintToken;
  /** The ID token of an OidcToken task (default: opaque, as mintToken). */
  readonly mintIdToken?: MintToken;
  /** Serve TLS on the gRPC port and HTTPS on the admin port, as Google serves its APIs (grpc-server.ts). */
  readonly servingCertificate?: ServingCertificate;
  /**
   * Keep the admin port plaintext even with a serving certificate: the local stack's control
   * surface, reached by tools and tests that do not trust its CA (the gRPC port stays TLS).
   */
  readonly plaintextAdmin?: boolean;
}

/** A running Cloud Tasks emulator; `book`, `faults` and `requests` are for in-process tests. */
export interface CloudTasksEmulator extends RunningEmulator {
  readonly adminUrl: string;
  readonly faults: FaultInjector;
  /** The RPCs, and one `Dispatch` record per attempt (target: the task, outcome: its HTTP status). */
  readonly requests: RequestLog;
  /** Queues, tasks (with every attempt) and tombstones. */
  readonly book: QueueBook;
  /** The allow policies, when configured (tests change them here or over the admin API). */
  readonly iam?: IamModel;
  /** Starts the attempts due now that rate and concurrency allow; the names of the tasks started. */
  tick(): readonly string[];
  /** `tick()`, then waits until every attempt in flight is answered; the names started. */
  dispatchDue(): Promise<readonly string[]>;
  /** Resolves when no attempt is in flight. */
  idle(): Promise<void>;
  /**
   * When `tick()` may next start an attempt (a task's schedule time, or its queue's next rate
   * token); undefined when nothing waits; only `queue`'s when named. For manual dispatch on a
   * virtual clock: move the clock there, then `dispatchDue()`.
   */
  nextDueMs(queue?: string): number | undefined;
}

type Request = Record<string, unknown>;

/** Offset paging with opaque tokens, as list RPCs page. */
function page<T>(items: readonly T[], request: Request): { items: T[]; next: string } {
  const size =
    typeof request.page_size === 'number' && request.page_size > 0 ? request.page_size : 1000;
  const token = typeof request.page_token === 'string' ? request.page_token : '';
  const start = token ? Number(Buffer.from(token, 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(start) || start < 0)
    throw new GrpcError(grpc.status.INVALID_ARGUMENT, `Invalid page_token "${token}".`);
  const end = start + size;
  return {
    items: items.slice(start, end),
    next: end < items.length ? Buffer.from(String(end)).toString('base64url') : '',
  };
}

/**
 * Starts a gRPC server implementing google.cloud.tasks.v2.CloudTasks from the .proto files inside
 * @google-cloud/tasks (queues, tasks, dispatch of HTTP targets), so the real CloudTasksClient talks
 * to it unchanged, and its admin API (admin.ts). IAM policy RPCs answer UNIMPLEMENTED; with
 * `iam`, every other RPC is authorized first (iam/rpc-permissions.ts).
 */
export async function startCloudTasksEmulator(
  options: CloudTasksEmulatorOptions = {},
): Promise<CloudTasksEmulator> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const guard = iamGuardFor('Cloud Tasks', options, cloudTasksDenied);
  /** Every RPC: IAM first (a caller with credentials, or any with enforceIam), then Cloud Tasks' rules. */
  const guarded = (handlers: Record<string, UnaryHandler>) =>
    guardHandlers(handlers, guard, cloudTasksPermissions);
  const book = new QueueBook(now, options.taskTombstoneMs ?? TASK_TOMBSTONE_MS);
  const dispatcher = new Dispatcher(book, {
    now,
    mode: options.dispatch ?? 'auto',
    mintToken: options.mintToken ?? opaqueToken('oauth'),
    mintIdToken: options.mintIdToken ?? opaqueToken('oidc'),
    requests,
  });
  for (const seed of options.queues ?? []) {
    const input = queueOfSeed(seed);
    book.createQueue((input.name ?? '').replace(/\/queues\/[^/]*$/, ''), input);
  }
  /** A handler that changes what is due, then lets the dispatcher look. */
  const thenWake =
    <T>(handler: (r: Request) => T) =>
    (r: Request): T => {
      const result = handler(r);
      dispatcher.wake();
      return result;
    };
  const setState = (state: 'RUNNING' | 'PAUSED') =>
    thenWake((r) => {
      const queue = book.queue(r.name);
      queue.state = state;
      return renderQueue(queue);
    });

  const protos = loadProtos(['google/cloud/tasks/v2/cloudtasks.proto'], ['@google-cloud/tasks']);
  const server = new grpc.Server();
  server.addService(
    lookupService(protos, 'google.cloud.tasks.v2.CloudTasks'),
    unaryHandlers(
      guarded({
        CreateQueue: thenWake((r) =>
          renderQueue(
            book.createQueue(String(r.parent ?? ''), decode(queueSchema, r.queue, 'queue')),
          ),
        ),
        GetQueue: (r) => renderQueue(book.queue(r.name)),
        ListQueues: (r) => {
          const { items, next } = page(book.listQueues(String(r.parent ?? '')), r);
          return { queues: items.map(renderQueue), next_page_token: next };
        },
        UpdateQueue: thenWake((r) => {
          const mask = decode(updateMaskSchema, r.update_mask, 'update_mask')?.paths ?? [];
          return renderQueue(book.updateQueue(decode(queueSchema, r.queue, 'queue'), mask));
        }),
        DeleteQueue: (r) => {
          book.deleteQueue(r.name);
          return {};
        },
        PurgeQueue: (r) => renderQueue(book.purgeQueue(r.name)),
        PauseQueue: setState('PAUSED'),
        ResumeQueue: setState('RUNNING'),
        CreateTask: thenWake((r) =>
          renderTask(
            book.createTask(r.parent, decode(taskSchema, r.task, 'task')),
            viewOf(r.response_view),
          ),
        ),
        GetTask: (r) => renderTask(book.task(r.name), viewOf(r.response_view)),
        ListTasks: (r) => {
          const tasks = book.tasksOf(book.queue(r.parent).name);
          const { items, next } = page(tasks, r);
          return {
            tasks: items.map((t) => renderTask(t, viewOf(r.response_view))),
            next_page_token: next,
          };
        },
        DeleteTask: (r) => {
          book.finish(book.task(r.name));
          return {};
        },
        RunTask: (r) => {
          const task = book.task(r.name);
          dispatcher.runNow(task);
          return renderTask(task, viewOf(r.response_view));
        },
      }),
      { faults, requests },
    ),
  );
  const port = await bindServer(server, host, options.port ?? 0, options.servingCertificate);
  const admin = await startAdminServer(host, options.adminPort ?? 0, {
    faults,
    requests,
    extra: eitherRoute(cloudTasksAdmin(book, dispatcher), guard && iamAdminRoutes(guard.model)),
    ...(options.servingCertificate && !options.plaintextAdmin
      ? { certificate: options.servingCertificate }
      : {}),
  });
  dispatcher.wake();
  // Over TLS the endpoint is named as its certificate names it: a client then sends that name
  // for SNI and checks it (an IP address as TLS ServerName is refused by RFC 6066, and Node warns).
  const endpoint = tlsEndpoint(host, port, options.servingCertificate !== undefined);
  return {
    name: 'cloud-tasks',
    endpoint,
    adminUrl: admin.url,
    faults,
    requests,
    book,
    ...(guard ? { iam: guard.model } : {}),
    tick: () => dispatcher.tick().started,
    dispatchDue: async () => {
      const { started } = dispatcher.tick();
      await dispatcher.idle();
      return started;
    },
    idle: () => dispatcher.idle(),
    nextDueMs: (queue) => dispatcher.nextDue(queue),
    info: () => ({
      name: 'cloud-tasks',
      endpoint,
      admin: admin.url,
      queues: [...book.queues.keys()],
      ...(options.servingCertificate ? { tls: true } : {}),
      ...(guard ? { iam: guard.enforced ? 'enforced' : 'with credentials' } : {}),
      env: { CLOUD_TASKS_EMULATOR_HOST: endpoint },
    }),
    stop: async () => {
      await shutdownServer(server);
      await dispatcher.stop();
      await admin.close();
    },
  };
}
