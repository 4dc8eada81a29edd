import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import * as z from 'zod';
import { startAdminServer } from '../common/admin-server';
import { eitherRoute, type AdminRoute } from '../common/admin-routes';
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
import { readJson, sendJson } from '../common/http';
import { iamAdminRoutes } from '../common/iam/iam-admin';
import { guardHandlers, iamGuardFor, type GoogleIamOptions } from '../common/iam/iam-guard';
import type { IamModel } from '../common/iam/iam-model';
import { loadProtos, lookupService } from '../common/protos';
import { RequestLog } from '../common/request-log';
import { createExecutionPacker, EXECUTION_TYPE_URL, loadExecutionType } from './any-codec';
import { ExecutionState } from './execution-state';
import { pageOf } from './execution-pages';
import { protoJson } from './proto-json';
import { cloudRunDenied, cloudRunPermissions } from './iam/rpc-permissions';
import { handleRestRunJob } from './rest-run-job';
import { runJobAuditEntries } from './audit-entries';
import {
  jobDefinitionSchema,
  type JobDefinition,
  type JobDefinitionInput,
} from './job-definitions';
import {
  argumentsFor,
  environmentFor,
  parallelismFor,
  taskCountFor,
  type RunJobOverrides,
} from './run-job-rules';
import { RunJobQuota } from './run-quota';
import { TaskRunner, type InProcessTask } from './task-runner';
import { taskHandlers } from './tasks-service';

/**
 * `iam`, `googleTokenInfoUrl`, `enforceIam` (GoogleIamOptions): every call with a bearer token, on
 * the gRPC and the REST surface, is authorized as Cloud Run authorizes it (iam/rpc-permissions.ts).
 */
export interface CloudRunEmulatorOptions extends GoogleIamOptions {
  readonly host?: string;
  readonly port?: number;
  readonly adminPort?: number;
  readonly jobs: readonly JobDefinitionInput[];
  /**
   * Called with every audit entry a RunJob writes, in order (audit-entries.ts: the request entry,
   * then the operation's completion entry and the system_event entry when the execution ends). The
   * stack publishes those the log sink routes (`routedBySink`).
   */
  readonly onAuditEntry?: (entry: Record<string, unknown>) => Promise<void> | void;
  /** Called with the system_event `/Jobs.RunJob` entry when an execution ends. */
  readonly onExecutionFinished?: (
    entry: Record<string, unknown>,
    execution: ExecutionState,
  ) => Promise<void> | void;
  /** Environment every task starts with (PATH and the like); job env and overrides go on top. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** Per job name: run tasks in this process instead of the declared command (fleet benchmarks). */
  readonly inProcessTasks?: Readonly<Record<string, InProcessTask>>;
  /**
   * The most tasks of one execution run at once here, below the job's parallelism
   * (task-runner.ts DEFAULT_MAX_PARALLEL_TASKS, 8, when absent).
   */
  readonly maxParallelTasks?: number;
  /**
   * "Job run requests per minute per region" (run-quota.ts): RunJob calls beyond it in any 60 s are
   * refused with RESOURCE_EXHAUSTED. Absent: no quota (also settable with `POST /quota`).
   */
  readonly runJobQuotaPerMinute?: number;
  /** The quota's clock (the fleet simulation's virtual one); Date.now otherwise. */
  readonly now?: () => number;
  /**
   * Serve TLS on the gRPC port and HTTPS on the admin port (the REST jobs.run with it), as Google
   * serves its APIs, so a client library can send call credentials (grpc-server.ts).
   */
  readonly servingCertificate?: ServingCertificate;
  /**
   * Keep the admin port plaintext even with a serving certificate: the local stack's control
   * surface, reached by tools and tests that do not trust its CA (the gRPC port stays TLS).
   */
  readonly plaintextAdmin?: boolean;
}

export interface CloudRunEmulator extends RunningEmulator {
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly adminUrl: string;
  /**
   * The Cloud Run Admin API's REST base (`POST {apiUrl}/v2/projects/P/locations/L/jobs/J:run`),
   * served on the admin port (rest-run-job.ts): what CLOUD_RUN_API_ENDPOINT names.
   */
  readonly apiUrl: string;
  readonly executions: ReadonlyMap<string, ExecutionState>;
  /** The RunJob quota: its setting, what the current window counted, and how many were refused. */
  readonly quota: RunJobQuota;
  /** Resolves when the execution has ended. */
  waitForExecution(name: string, timeoutMs?: number): Promise<ExecutionState>;
  /** The allow policies, when configured (tests change them here or over the admin API). */
  readonly iam?: IamModel;
  /** Sends a signal to the running task of an execution (simulates a crash). */
  kill(name: string, signal?: NodeJS.Signals): boolean;
  /** Kills the task of the next `count` attempts that start, `afterMs` after they start. */
  killNext(count: number, afterMs: number, signal?: NodeJS.Signals): void;
}

type Request = Record<string, unknown>;

/**
 * Starts a gRPC server implementing google.cloud.run.v2.Jobs (GetJob, ListJobs, RunJob with
 * overrides), Executions (GetExecution, ListExecutions, CancelExecution) and
 * google.longrunning.Operations, so the real JobsClient and ExecutionsClient talk to it. RunJob
 * runs the declared command as a child process per task attempt, the execution's tasks (its
 * task count) at most `parallelism` at once (task-runner.ts).
 */
export async function startCloudRunEmulator(
  options: CloudRunEmulatorOptions,
): Promise<CloudRunEmulator> {
  const host = options.host ?? '127.0.0.1';
  const jobs = new Map<string, JobDefinition>(
    options.jobs.map((input) => {
      const job = jobDefinitionSchema.parse(input);
      if (job.logDir) fs.mkdirSync(job.logDir, { recursive: true });
      return [job.name, job];
    }),
  );
  const executions = new Map<string, ExecutionState>();
  /** Creation order of executions, for newest-first listing with stable page tokens. */
  const sequences = new Map<string, number>();
  const runners = new Map<string, TaskRunner>();
  const finished = new Map<string, Promise<void>>();
  const operations = new Map<string, string>();
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const executionType = loadExecutionType();
  const pack = createExecutionPacker(executionType);
  const baseEnv = options.baseEnv ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const pendingKills: { afterMs: number; signal: NodeJS.Signals }[] = [];
  const quota = new RunJobQuota(options.runJobQuotaPerMinute, options.now);
  const guard = iamGuardFor('Cloud Run', options, cloudRunDenied);
  /** Every RPC: IAM first (a caller with credentials, or any with enforceIam), then Cloud Run's rules. */
  const guarded = (handlers: Record<string, UnaryHandler>) =>
    guardHandlers(handlers, guard, cloudRunPermissions);

  const requireJob = (name: unknown) => {
    const job = typeof name === 'string' ? jobs.get(name) : undefined;
    if (!job)
      throw new GrpcError(
        grpc.status.NOT_FOUND,
        `Resource '${String(name)}' of kind 'JOB' was not found.`,
      );
    return job;
  };
  const requireExecution = (name: unknown) => {
    const execution = typeof name === 'string' ? executions.get(name) : undefined;
    if (!execution)
      throw new GrpcError(
        grpc.status.NOT_FOUND,
        `Resource '${String(name)}' of kind 'EXECUTION' was not found.`,
      );
    return execution;
  };
  const renderJob = (job: JobDefinition) => ({
    name: job.name,
    uid: job.name,
    generation: '1',
    launch_stage: 'GA',
    template: {
      task_count: job.taskCount,
      parallelism: job.parallelism,
      template: {
        containers: [
          {
            name: job.containerName,
            command: job.command,
            args: job.args,
            env: Object.entries(job.env).map(([name, value]) => ({ name, value })),
          },
        ],
        max_retries: job.maxRetries,
        timeout: { seconds: String(job.timeoutSeconds), nanos: 0 },
      },
    },
    execution_count: [...executions.values()].filter((e) => e.job.name === job.name).length,
  });
  const renderOperation = (operationName: string) => {
    const execution = requireExecution(operations.get(operationName));
    const proto = pack(execution.toProto());
    return {
      name: operationName,
      metadata: proto,
      done: execution.done,
      ...(execution.done ? { response: proto } : {}),
    };
  };

  /** The operation in proto3 JSON, as the REST surface answers it: `metadata` is the Execution. */
  const operationJson = (operationName: string) => {
    const execution = requireExecution(operations.get(operationName));
    const json = { '@type': EXECUTION_TYPE_URL, ...protoJson(executionType, execution.toProto()) };
    return {
      name: operationName,
      metadata: json,
      done: execution.done,
      ...(execution.done ? { response: json } : {}),
    };
  };

  /** RunJob, for the gRPC and the REST surface alike: the name of its operation. */
  const runJob = (request: Request): string => {
    // The quota is checked before the request is looked at, as Google's front end does.
    quota.admit(String(request.name ?? ''));
    const job = requireJob(request.name);
    const overrides = (request.overrides ?? {}) as RunJobOverrides;
    const env = environmentFor(job, overrides);
    const taskCount = taskCountFor(job, overrides);
    const timeoutSeconds = overrides.timeout?.seconds
      ? Number(overrides.timeout.seconds)
      : job.timeoutSeconds;
    const execution = new ExecutionState(
      job,
      env,
      timeoutSeconds,
      (name) => executions.has(name),
      argumentsFor(job, overrides),
      taskCount,
      parallelismFor(job, taskCount),
    );
    executions.set(execution.name, execution);
    sequences.set(execution.name, sequences.size);
    const runner = new TaskRunner(
      execution,
      baseEnv,
      options.inProcessTasks?.[job.name],
      options.maxParallelTasks,
    );
    runners.set(execution.name, runner);
    const kill = pendingKills.shift();
    const audit = runJobAuditEntries(execution, { name: request.name, overrides });
    const writeAudit = async (entry: Record<string, unknown>) => {
      try {
        await options.onAuditEntry?.(entry);
      } catch (error) {
        process.stderr.write(
          `cloud-run emulator: publishing an audit entry failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    };
    const started = writeAudit(audit.started);
    finished.set(
      execution.name,
      (async () => {
        if (kill) setTimeout(() => runner.kill(kill.signal), kill.afterMs).unref();
        await runner.run();
        runners.delete(execution.name);
        await started;
        const [completion, systemEvent] = audit.finished({
          '@type': EXECUTION_TYPE_URL,
          ...protoJson(executionType, execution.toProto()),
        });
        await writeAudit(completion!);
        await writeAudit(systemEvent!);
        try {
          await options.onExecutionFinished?.(systemEvent!, execution);
        } catch (error) {
          process.stderr.write(
            `cloud-run emulator: publishing the execution-finished entry failed: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        }
      })(),
    );
    const operationName = `${job.name.split('/jobs/')[0]}/operations/${randomUUID()}`;
    operations.set(operationName, execution.name);
    return operationName;
  };

  // ListExecutions: a job's executions (or every job's, with jobs/-), newest first, paged.
  const listExecutions = (r: Request) => {
    const parent = String(r.parent ?? '');
    const allJobs = parent.endsWith('/jobs/-');
    if (!allJobs) requireJob(parent);
    const matching = [...executions.values()]
      .filter((e) => (allJobs ? e.job.name.startsWith(parent.slice(0, -1)) : e.job.name === parent))
      .map((e) => ({ execution: e, sequence: sequences.get(e.name) ?? 0 }));
    const { page, nextPageToken } = pageOf(matching, {
      parent,
      ...(typeof r.page_size === 'number' ? { pageSize: r.page_size } : {}),
      ...(typeof r.page_token === 'string' ? { pageToken: r.page_token } : {}),
    });
    return {
      executions: page.map((p) => p.execution.toProto()),
      next_page_token: nextPageToken,
    };
  };

  const protos = loadProtos(
    [
      'google/cloud/run/v2/job.proto',
      'google/cloud/run/v2/execution.proto',
      'google/cloud/run/v2/task.proto',
      'google/longrunning/operations.proto',
    ],
    ['@google-cloud/run'],
  );
  const server = new grpc.Server();
  const context = { faults, requests };
  server.addService(
    lookupService(protos, 'google.cloud.run.v2.Jobs'),
    unaryHandlers(
      guarded({
        GetJob: (r: Request) => renderJob(requireJob(r.name)),
        ListJobs: (r: Request) => ({
          jobs: [...jobs.values()]
            .filter((j) => j.name.startsWith(`${String(r.parent)}/`))
            .map(renderJob),
          next_page_token: '',
        }),
        RunJob: (r: Request) => renderOperation(runJob(r)),
      }),
      context,
    ),
  );
  server.addService(
    lookupService(protos, 'google.cloud.run.v2.Executions'),
    unaryHandlers(
      guarded({
        GetExecution: (r: Request) => requireExecution(r.name).toProto(),
        ListExecutions: (r: Request) => listExecutions(r),
        CancelExecution: (r: Request) => {
          const execution = requireExecution(r.name);
          runners.get(execution.name)?.cancel();
          const operationName = `${execution.job.name.split('/jobs/')[0]}/operations/${randomUUID()}`;
          operations.set(operationName, execution.name);
          return renderOperation(operationName);
        },
      }),
      context,
    ),
  );
  server.addService(
    lookupService(protos, 'google.cloud.run.v2.Tasks'),
    unaryHandlers(guarded(taskHandlers(executions)), context),
  );
  server.addService(
    lookupService(protos, 'google.longrunning.Operations'),
    unaryHandlers(
      guarded({
        GetOperation: (r: Request) => {
          if (typeof r.name !== 'string' || !operations.has(r.name))
            throw new GrpcError(grpc.status.NOT_FOUND, `Operation ${String(r.name)} not found.`);
          return renderOperation(r.name);
        },
        // The operations under `name` (projects/P/locations/L): what run.operations.list was
        // checked on, so a caller sees no other location's.
        ListOperations: (r: Request) => ({
          operations: [...operations.keys()]
            .filter(
              (o) => typeof r.name !== 'string' || r.name === '' || o.startsWith(`${r.name}/`),
            )
            .map(renderOperation),
          next_page_token: '',
        }),
        DeleteOperation: (r: Request) => {
          operations.delete(String(r.name));
          return {};
        },
      }),
      context,
    ),
  );
  const port = await bindServer(server, host, options.port ?? 0, options.servingCertificate);

  const killSchema = z.object({
    execution: z.string().optional(),
    signal: z.enum(['SIGKILL', 'SIGTERM', 'SIGINT']).default('SIGKILL'),
    count: z.number().int().min(1).default(1),
    afterMs: z.number().int().min(0).default(0),
  });
  const quotaSchema = z.object({ runJobsPerMinute: z.number().int().min(1).nullable() });
  // What a `terraform apply` that changes the job's environment does (UpdateJob): executions
  // started from then on get the new environment; running ones keep theirs. null removes a key.
  const jobEnvSchema = z.object({
    name: z.string(),
    env: z.record(z.string(), z.string().nullable()),
  });
  const admin: AdminRoute = async (req, res, path) => {
    if (req.method === 'POST' && path === '/job-env') {
      const body = jobEnvSchema.parse(await readJson(req));
      const job = jobs.get(body.name);
      if (!job) {
        sendJson(res, 404, { error: `no job ${body.name}` });
        return true;
      }
      const env = { ...job.env };
      for (const [key, value] of Object.entries(body.env))
        if (value === null) delete env[key];
        else env[key] = value;
      jobs.set(job.name, { ...job, env });
      sendJson(res, 200, { name: job.name, env: Object.keys(env).sort() });
      return true;
    }
    if (path === '/quota' && (req.method === 'GET' || req.method === 'POST')) {
      if (req.method === 'POST')
        quota.set(quotaSchema.parse(await readJson(req)).runJobsPerMinute ?? undefined);
      sendJson(res, 200, quota.state());
      return true;
    }
    if (req.method === 'GET' && path === '/executions') {
      sendJson(res, 200, {
        executions: [...executions.values()].map((e) => ({
          name: e.name,
          pid: e.pid ?? null,
          done: e.done,
          end: e.end ?? null,
          env: e.env,
          args: e.args,
        })),
      });
      return true;
    }
    if (req.method === 'POST' && (path === '/kill' || path === '/kill-next')) {
      const body = killSchema.parse((await readJson(req)) ?? {});
      if (path === '/kill')
        sendJson(res, 200, {
          killed: body.execution
            ? (runners.get(body.execution)?.kill(body.signal) ?? false)
            : false,
        });
      else {
        for (let i = 0; i < body.count; i++)
          pendingKills.push({ afterMs: body.afterMs, signal: body.signal });
        sendJson(res, 200, { pending: pendingKills.length });
      }
      return true;
    }
    return false;
  };
  const adminServer = await startAdminServer(host, options.adminPort ?? 0, {
    faults,
    requests,
    extra: eitherRoute(admin, guard ? iamAdminRoutes(guard.model) : undefined),
    // The REST RunJob shares the admin port: one HTTP server, and the path spaces do not meet
    // (/_emulator/... and /v2/...).
    api: (req, res) =>
      handleRestRunJob(req, res, {
        faults,
        requests,
        runJob,
        operationJson,
        ...(guard
          ? {
              authorize: async (authorization) => {
                const caller = await guard.authenticate(authorization);
                return (request) => guard.check(caller, cloudRunPermissions('RunJob', request));
              },
            }
          : {}),
      }),
    ...(options.servingCertificate && !options.plaintextAdmin
      ? { certificate: options.servingCertificate }
      : {}),
  });
  // Over TLS the endpoint is named as its certificate names it: a client then sends that name
  // for SNI and checks it (an IP address as TLS ServerName is refused by RFC 6066, and Node warns).
  const endpoint = tlsEndpoint(host, port, options.servingCertificate !== undefined);
  return {
    name: 'cloud-run',
    endpoint,
    adminUrl: adminServer.url,
    apiUrl: adminServer.url,
    faults,
    requests,
    executions,
    quota,
    ...(guard ? { iam: guard.model } : {}),
    info: () => ({
      name: 'cloud-run',
      endpoint,
      admin: adminServer.url,
      jobs: [...jobs.keys()],
      ...(options.servingCertificate ? { tls: true } : {}),
      ...(guard ? { iam: guard.enforced ? 'enforced' : 'with credentials' } : {}),
      env: { CLOUD_RUN_EMULATOR_HOST: endpoint, CLOUD_RUN_API_ENDPOINT: adminServer.url },
    }),
    waitForExecution: async (name, timeoutMs = 60_000) => {
      const done = finished.get(name);
      if (!done) throw new Error(`no execution ${name}`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        done,
        new Promise(
          (_, reject) =>
            (timer = setTimeout(
              () => reject(new Error(`execution ${name} did not finish within ${timeoutMs} ms`)),
              timeoutMs,
            )),
        ),
      ]);
      clearTimeout(timer);
      return executions.get(name)!;
    },
    kill: (name, signal = 'SIGKILL') => runners.get(name)?.kill(signal) ?? false,
    killNext: (count, afterMs, signal = 'SIGKILL') => {
      for (let i = 0; i < count; i++) pendingKills.push({ afterMs, signal });
    },
    stop: async () => {
      for (const runner of runners.values()) runner.cancel();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(finished.values()),
        new Promise((r) => (timer = setTimeout(r, 3000))),
      ]);
      clearTimeout(timer);

      await shutdownServer(server);
      await adminServer.close();
    },
  };
}
