import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import type { AdminRoute } from '../common/admin-routes';
import { readJson, sendJson } from '../common/http';
import {
  callerOf,
  MISSING_CREDENTIALS_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '../common/google-caller';
import type { IamModel } from '../common/iam/iam-model';

// The one Org Policy API v2 method the job calls, served beside Resource Manager on the Secret
// Manager emulator's admin port (the organization policies that decide where a project's secrets
// may live are set on the same projects):
//   GET /v2/projects/{project}/policies/{constraint}:getEffectivePolicy
// (https://cloud.google.com/resource-manager/docs/reference/orgpolicy/rest/v2/projects.policies/getEffectivePolicy,
// google/cloud/orgpolicy/v2/orgpolicy.proto). IAM as for the other emulated calls: a caller
// without credentials is refused (401 UNAUTHENTICATED), and one without orgpolicy.policy.get on
// the project (roles/orgpolicy.policyViewer's permission:
// https://cloud.google.com/iam/docs/roles-permissions/orgpolicy), or asking about a project it
// cannot see, gets 403 PERMISSION_DENIED. The answer is named by project number, as the API's
// responses are, and carries no etag (an effective policy has none). A constraint with no policy
// answers a spec without rules: the constraint's default, which the caller applies. Only what a
// policy administrator set on the project itself is known; there is no folder or organization
// hierarchy to merge.

const PATH = /^\/v2\/projects\/([^/:]+)\/policies\/([A-Za-z0-9.]+):getEffectivePolicy$/;
const PERMISSION = 'orgpolicy.policy.get';

const ruleSchema = z.object({
  values: z
    .object({
      allowedValues: z.array(z.string()).optional(),
      deniedValues: z.array(z.string()).optional(),
    })
    .optional(),
  allowAll: z.boolean().optional(),
  denyAll: z.boolean().optional(),
});
const specSchema = z.object({ rules: z.array(ruleSchema).default([]) });
export type OrgPolicySpec = z.output<typeof specSchema>;

/** The policies set on projects, by `PROJECT/CONSTRAINT` (the project by id). */
export class OrgPolicies {
  private readonly specs = new Map<string, OrgPolicySpec>();

  /** Sets (or, with undefined, removes) the policy of `constraint` on the project. */
  set(project: string, constraint: string, spec: z.input<typeof specSchema> | undefined): void {
    if (spec === undefined) this.specs.delete(`${project}/${constraint}`);
    else this.specs.set(`${project}/${constraint}`, specSchema.parse(spec));
  }

  get(project: string, constraint: string): OrgPolicySpec | undefined {
    return this.specs.get(`${project}/${constraint}`);
  }
}

const googleError = (code: number, status: string, message: string) => ({
  error: { code, message, status },
});

/** Serves projects.policies.getEffectivePolicy; false when the request is not that method. */
export async function handleOrgPolicy(
  req: IncomingMessage,
  res: ServerResponse,
  context: { policies: OrgPolicies; model: IamModel; tokenInfoUrl: string },
): Promise<boolean> {
  const match = PATH.exec((req.url ?? '/').split('?')[0] ?? '/');
  if (!match || req.method !== 'GET') return false;
  const { model, policies } = context;
  const caller = await callerOf(req.headers.authorization, context.tokenInfoUrl, (id) =>
    model.serviceAccountEmail(id),
  );
  if (caller.kind !== 'principal') {
    const message =
      caller.kind === 'invalid' ? UNAUTHENTICATED_MESSAGE : MISSING_CREDENTIALS_MESSAGE;
    sendJson(res, 401, googleError(401, 'UNAUTHENTICATED', message));
    return true;
  }
  const asked = decodeURIComponent(match[1]!);
  const constraint = match[2]!;
  const project = model.projectId(asked);
  if (
    project === undefined ||
    model.held(caller.principal, `projects/${project}`, [PERMISSION]).length === 0
  ) {
    sendJson(
      res,
      403,
      googleError(
        403,
        'PERMISSION_DENIED',
        `Permission '${PERMISSION}' denied on resource '//cloudresourcemanager.googleapis.com/projects/${asked}' (or it may not exist).`,
      ),
    );
    return true;
  }
  const spec = policies.get(project, constraint) ?? { rules: [] };
  sendJson(res, 200, {
    name: `projects/${model.projectNumber(project)}/policies/${constraint}`,
    spec: spec.rules.length > 0 ? { rules: spec.rules } : {},
  });
  return true;
}

/**
 * What a policy administrator does with gcloud org-policies set-policy / delete:
 *   PUT    /_emulator/org-policies/PROJECT/CONSTRAINT   body {"rules": [...]} (PolicySpec's rules)
 *   DELETE /_emulator/org-policies/PROJECT/CONSTRAINT
 */
export function orgPolicyAdminRoutes(policies: OrgPolicies): AdminRoute {
  return async (req, res, path) => {
    const match = /^\/org-policies\/([a-z][a-z0-9-]{4,28}[a-z0-9])\/([A-Za-z0-9.]+)$/.exec(path);
    if (!match) return false;
    if (req.method === 'PUT') {
      const parsed = specSchema.safeParse(await readJson(req));
      if (!parsed.success) {
        sendJson(res, 400, { error: 'the body must be a PolicySpec: {"rules": [...]}' });
        return true;
      }
      policies.set(match[1]!, match[2]!, parsed.data);
      sendJson(res, 200, parsed.data);
      return true;
    }
    if (req.method === 'DELETE') {
      policies.set(match[1]!, match[2]!, undefined);
      sendJson(res, 200, {});
      return true;
    }
    return false;
  };
}
