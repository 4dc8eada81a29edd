import {
  beforeWildcard,
  type PermissionTable,
  type RequiredPermission,
} from '../../common/iam/iam-guard';

// The permission each Cloud Run Admin API v2 RPC the emulator serves needs, and the resource IAM
// checks it on: the method reference pages ("Authorization requires the following IAM permission
// on the specified resource name: ..."), e.g.
// https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run (run.jobs.run on
// the job; "overrides: Authorization requires ... run.jobs.runWithOverrides"), and the permissions
// page https://cloud.google.com/run/docs/reference/iam/permissions (jobs, executions, tasks,
// operations; "the permission for canceling job executions will change from run.jobs.run to
// run.executions.cancel", which it has). Executions, tasks and operations have no policy of their
// own: the job's, the location's or the project's applies to them (IamModel's inheritance).
//
//   Jobs.GetJob                   run.jobs.get             name (the job)
//   Jobs.ListJobs                 run.jobs.list            parent (projects/P/locations/L)
//   Jobs.RunJob                   run.jobs.run             name (the job)
//                                 + run.jobs.runWithOverrides on the job when `overrides` is set
//   Executions.GetExecution       run.executions.get       name (the execution)
//   Executions.ListExecutions     run.executions.list      parent (the job; jobs/-: the location)
//   Executions.CancelExecution    run.executions.cancel    name (the execution)
//   Tasks.GetTask                 run.tasks.get            name (the task)
//   Tasks.ListTasks               run.tasks.list           parent (the execution; `-` parts cut)
//   Operations.GetOperation       run.operations.get       name (projects/P/locations/L/operations/O)
//   Operations.ListOperations     run.operations.list      name (projects/P/locations/L)
//   Operations.DeleteOperation    run.operations.delete    name (the operation)
//
// So a caller that may run a job but not read operations (Cloud Run Jobs Executor) gets its
// RunJob's operation and cannot poll it: GetOperation answers PERMISSION_DENIED, as in Cloud Run.

/** Where each method's resource name is, and the permission it needs. */
const METHODS: Readonly<Record<string, { readonly field: string; readonly permission: string }>> = {
  GetJob: { field: 'name', permission: 'run.jobs.get' },
  ListJobs: { field: 'parent', permission: 'run.jobs.list' },
  RunJob: { field: 'name', permission: 'run.jobs.run' },
  GetExecution: { field: 'name', permission: 'run.executions.get' },
  ListExecutions: { field: 'parent', permission: 'run.executions.list' },
  CancelExecution: { field: 'name', permission: 'run.executions.cancel' },
  GetTask: { field: 'name', permission: 'run.tasks.get' },
  ListTasks: { field: 'parent', permission: 'run.tasks.list' },
  GetOperation: { field: 'name', permission: 'run.operations.get' },
  ListOperations: { field: 'name', permission: 'run.operations.list' },
  DeleteOperation: { field: 'name', permission: 'run.operations.delete' },
};

/** A Cloud Run v2 name under a location: `projects/P/locations/L[/COLLECTION/ID...]`. */
const NAME = /^projects\/[^/]+\/locations\/[^/]+(?:\/[A-Za-z]+\/[^/]+)*$/;

/**
 * What `method` needs for `request`, in the order Cloud Run checks it; [] for a method the
 * table does not know and for a missing or malformed name (the method answers INVALID_ARGUMENT or
 * NOT_FOUND itself, naming no resource a caller could probe).
 */
export const cloudRunPermissions: PermissionTable = (method, request) => {
  const rule = METHODS[method];
  const name = rule ? request[rule.field] : undefined;
  if (!rule || typeof name !== 'string' || !NAME.test(name)) return [];
  const resource = beforeWildcard(name);
  const required: RequiredPermission[] = [{ permission: rule.permission, resource }];
  // RunJobRequest.overrides (a message: absent unless the caller set it, PROTO_LOADER_OPTIONS).
  if (method === 'RunJob' && typeof request.overrides === 'object' && request.overrides !== null)
    required.push({ permission: 'run.jobs.runWithOverrides', resource });
  return required;
};

/**
 * Cloud Run's PERMISSION_DENIED, as gcloud and the client libraries print it ("Permission
 * 'run.services.get' denied on resource 'namespaces/P/services/S' (or resource may not exist).",
 * https://github.com/google-github-actions/deploy-cloudrun/issues/182; v2 names the resource
 * `projects/P/locations/L/...`).
 */
export const cloudRunDenied = (required: RequiredPermission): string =>
  `Permission '${required.permission}' denied on resource '${required.resource}' (or resource may not exist).`;
