import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { BodyError, readJson, sendJson } from '../../common/http';
import {
  callerOf,
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '../../common/google-caller';
import type { IamModel } from '../../common/iam/iam-model';
import { PERMISSION } from '../../common/iam/roles';

// Cloud Resource Manager's projects.testIamPermissions, backed by the Secret Manager emulator's IAM
// model (a project's allow policy is where Terraform grants secretmanager.secrets.create):
//   POST https://cloudresourcemanager.googleapis.com/v3/projects/{id}:testIamPermissions
//   (v1: /v1/projects/{id}:testIamPermissions), body {"permissions": [...]},
//   answer {"permissions": [the subset held]}; "There are no permissions required for making
//   this API call" (https://cloud.google.com/resource-manager/reference/rest/v3/projects/testIamPermissions,
//   https://cloud.google.com/resource-manager/reference/rest/v1/projects/testIamPermissions).
// The caller must be authenticated (401 UNAUTHENTICATED otherwise); a project the caller cannot
// see, or that does not exist, answers 403 PERMISSION_DENIED ("The caller does not have
// permission"), as Resource Manager does not reveal whether a project exists. Errors are Google
// API errors: {"error": {"code", "message", "status"}}.

const PATH = /^\/v[13]\/projects\/([^/:]+):testIamPermissions$/;
const bodySchema = z.object({ permissions: z.array(z.string()).default([]) }).default({
  permissions: [],
});

const googleError = (code: number, status: string, message: string) => ({
  error: { code, message, status },
});

/** Serves projects.testIamPermissions; false when the request is not that method. */
export async function handleResourceManager(
  req: IncomingMessage,
  res: ServerResponse,
  model: IamModel,
  tokenInfoUrl: string,
): Promise<boolean> {
  const match = PATH.exec((req.url ?? '/').split('?')[0] ?? '/');
  if (!match) return false;
  if (req.method !== 'POST') {
    sendJson(res, 405, googleError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed`));
    return true;
  }
  const caller = await callerOf(req.headers.authorization, tokenInfoUrl, (id) =>
    model.serviceAccountEmail(id),
  );
  if (caller.kind !== 'principal') {
    sendJson(
      res,
      401,
      googleError(
        401,
        'UNAUTHENTICATED',
        caller.kind === 'invalid' ? UNAUTHENTICATED_MESSAGE : MISSING_CREDENTIALS_MESSAGE,
      ),
    );
    return true;
  }
  let body: z.infer<typeof bodySchema>;
  try {
    const parsed = bodySchema.safeParse(await readJson(req, 64 * 1024));
    if (!parsed.success) throw new BodyError('permissions must be a list of strings');
    body = parsed.data;
  } catch (error) {
    sendJson(res, 400, googleError(400, 'INVALID_ARGUMENT', (error as Error).message));
    return true;
  }
  const malformed = body.permissions.find((p) => !PERMISSION.test(p));
  if (malformed !== undefined) {
    sendJson(
      res,
      400,
      googleError(400, 'INVALID_ARGUMENT', `Permission ${malformed} is not valid.`),
    );
    return true;
  }
  const project = decodeURIComponent(match[1]!);
  if (model.projectId(project) === undefined) {
    sendJson(
      res,
      403,
      googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
    );
    return true;
  }
  const held = model.held(caller.principal, `projects/${project}`, body.permissions);
  // Google leaves an empty repeated field out of the JSON.
  sendJson(res, 200, held.length > 0 ? { permissions: held } : {});
  return true;
}
