import type { PermissionTable, RequiredPermission } from '../../common/iam/iam-guard';
import { queueOfTask } from '../rules';

// The permission each CloudTasks RPC the emulator serves needs, and the resource IAM checks it on:
// "Every Cloud Tasks method requires the caller to have the necessary permissions"
// (https://cloud.google.com/tasks/docs/reference-access-control, its table of methods: "GetTask
// cloudtasks.tasks.get on the specified queue", "RunTask cloudtasks.tasks.run on the specified
// task", ...) and the method reference pages ("Authorization requires the following IAM permission
// on the specified resource parent: cloudtasks.tasks.create",
// https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks/create;
// queues.create on the parent location). A FULL response view needs cloudtasks.tasks.fullView as
// well ("Authorization for FULL requires cloudtasks.tasks.fullView Google IAM permission on the
// Task resource": CreateTaskRequest, GetTaskRequest, ListTasksRequest, RunTaskRequest in
// google/cloud/tasks/v2/cloudtasks.proto). Tasks have no policy of their own: the queue's
// applies (IamModel's inheritance), so a check "on the task" and "on the queue" hold alike.
//
//   ListQueues     cloudtasks.queues.list     parent (projects/P/locations/L)
//   GetQueue       cloudtasks.queues.get      name (the queue)
//   CreateQueue    cloudtasks.queues.create   parent (the location: the queue does not exist yet)
//   UpdateQueue    cloudtasks.queues.update   queue.name (the queue; also when it creates it:
//                                             what is checked cannot depend on existence)
//   DeleteQueue    cloudtasks.queues.delete   name
//   PurgeQueue     cloudtasks.queues.purge    name
//   PauseQueue     cloudtasks.queues.pause    name
//   ResumeQueue    cloudtasks.queues.resume   name
//   ListTasks      cloudtasks.tasks.list      parent (the queue)      [+ fullView on it when FULL]
//   GetTask        cloudtasks.tasks.get       the task's queue        [+ fullView on the task]
//   CreateTask     cloudtasks.tasks.create    parent (the queue)      [+ fullView on it when FULL]
//   DeleteTask     cloudtasks.tasks.delete    the task's queue
//   RunTask        cloudtasks.tasks.run       name (the task)         [+ fullView on the task]
//
// A task whose HTTP request carries an OAuth or OIDC token of a service account needs, on
// CreateTask, iam.serviceAccounts.actAs on that account as well ("The caller must have
// iam.serviceAccounts.actAs permission for the service account",
// https://cloud.google.com/tasks/docs/reference/rest/v2/OAuthToken and .../OidcToken): checked on
// projects/PROJECT/serviceAccounts/EMAIL (the project of a user-managed account is in its email:
// https://cloud.google.com/iam/docs/service-account-overview#user-managed), named by its email.
//
// GetIamPolicy, SetIamPolicy and TestIamPermissions are not served (UNIMPLEMENTED).

type Where = 'name' | 'parent' | 'queue.name' | 'queueOfName';

const METHODS: Readonly<
  Record<string, { readonly where: Where; readonly permission: string; readonly view?: Where }>
> = {
  ListQueues: { where: 'parent', permission: 'cloudtasks.queues.list' },
  GetQueue: { where: 'name', permission: 'cloudtasks.queues.get' },
  CreateQueue: { where: 'parent', permission: 'cloudtasks.queues.create' },
  UpdateQueue: { where: 'queue.name', permission: 'cloudtasks.queues.update' },
  DeleteQueue: { where: 'name', permission: 'cloudtasks.queues.delete' },
  PurgeQueue: { where: 'name', permission: 'cloudtasks.queues.purge' },
  PauseQueue: { where: 'name', permission: 'cloudtasks.queues.pause' },
  ResumeQueue: { where: 'name', permission: 'cloudtasks.queues.resume' },
  ListTasks: { where: 'parent', permission: 'cloudtasks.tasks.list', view: 'parent' },
  GetTask: { where: 'queueOfName', permission: 'cloudtasks.tasks.get', view: 'name' },
  CreateTask: { where: 'parent', permission: 'cloudtasks.tasks.create', view: 'parent' },
  DeleteTask: { where: 'queueOfName', permission: 'cloudtasks.tasks.delete' },
  RunTask: { where: 'name', permission: 'cloudtasks.tasks.run', view: 'name' },
};

/** A Cloud Tasks name under a location: `projects/P/locations/L[/queues/Q[/tasks/T]]`. */
const NAME = /^projects\/[^/]+\/locations\/[^/]+(?:\/queues\/[^/]+(?:\/tasks\/[^/]+)?)?$/;

function resourceAt(where: Where, request: Readonly<Record<string, unknown>>): string | undefined {
  const field =
    where === 'queue.name'
      ? (request.queue as { name?: unknown } | null | undefined)?.name
      : request[where === 'queueOfName' ? 'name' : where];
  if (typeof field !== 'string' || !NAME.test(field)) return undefined;
  if (where !== 'queueOfName') return field;
  const queue = queueOfTask(field);
  return queue === '' ? undefined : queue;
}

/** `projects/P/serviceAccounts/EMAIL` of a service account email (P `-` when the email does not say). */
function serviceAccountResource(email: string): string {
  const project =
    /@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/.exec(email)?.[1] ??
    /^(\d+)-compute@developer\.gserviceaccount\.com$/.exec(email)?.[1] ??
    '-';
  return `projects/${project}/serviceAccounts/${email}`;
}

/** The service account whose token a CreateTask's HTTP request carries, if any. */
function tokenAccount(request: Readonly<Record<string, unknown>>): string | undefined {
  const task = request.task as { http_request?: unknown } | null | undefined;
  const http = task?.http_request as
    | {
        oauth_token?: { service_account_email?: unknown };
        oidc_token?: { service_account_email?: unknown };
      }
    | null
    | undefined;
  const email = http?.oauth_token?.service_account_email ?? http?.oidc_token?.service_account_email;
  return typeof email === 'string' && email !== '' ? email : undefined;
}

/**
 * What `method` needs for `request`, in the order Cloud Tasks checks it; [] for a method the
 * table does not know and for a missing or malformed name (the method answers INVALID_ARGUMENT).
 */
export const cloudTasksPermissions: PermissionTable = (method, request) => {
  const rule = METHODS[method];
  const resource = rule ? resourceAt(rule.where, request) : undefined;
  if (!rule || resource === undefined) return [];
  const required: RequiredPermission[] = [{ permission: rule.permission, resource }];
  const viewOn = rule.view ? resourceAt(rule.view, request) : undefined;
  if (request.response_view === 'FULL' && viewOn !== undefined)
    required.push({ permission: 'cloudtasks.tasks.fullView', resource: viewOn });
  const account = method === 'CreateTask' ? tokenAccount(request) : undefined;
  if (account !== undefined)
    required.push({
      permission: 'iam.serviceAccounts.actAs',
      resource: serviceAccountResource(account),
      named: account,
    });
  return required;
};

/**
 * Cloud Tasks' PERMISSION_DENIED, word for word as its API answers it: 'The principal (user or
 * service account) lacks IAM permission "cloudtasks.tasks.create" for the resource
 * "projects/P/locations/L/queues/Q" (or the resource may not exist).'
 * (https://github.com/googleapis/repo-automation-bots/issues/5598,
 * https://github.com/TEAMMATES/teammates/issues/10974); for actAs the resource is the account's
 * email (https://github.com/octue/django-gcp/issues/47).
 */
export const cloudTasksDenied = (required: RequiredPermission): string =>
  `The principal (user or service account) lacks IAM permission "${required.permission}" for the resource "${required.named ?? required.resource}" (or the resource may not exist).`;
