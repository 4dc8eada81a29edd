import { ONBOARDING_SECTION } from '../run/permission-fix';
import { DOCTOR_SECTION, fail, ok, skip, type CheckResult } from './check';

// What the job needs in a customer project, from the calls it makes (google-secret-store.ts,
// claim/claim.ts) and Terraform's custom role (modules/pullsecret-tenant-role), and what it must not hold
// (docs/deployment.md, "Onboarding a customer project": never secrets.list or any IAM permission).

/** Checked on the project (Resource Manager projects.testIamPermissions): CreateSecret's permission. */
export const PROJECT_REQUIRED = ['secretmanager.secrets.create'] as const;
/** Must not be held on the project: listing every secret, or changing who may. */
export const PROJECT_EXCESS = [
  'secretmanager.secrets.list',
  'secretmanager.secrets.setIamPolicy',
  'resourcemanager.projects.setIamPolicy',
] as const;
/** Checked on a hyperfleet-* secret (Secret Manager TestIamPermissions). */
export const SECRET_REQUIRED = [
  'secretmanager.secrets.get',
  'secretmanager.secrets.update',
  'secretmanager.versions.access',
  'secretmanager.versions.add',
  'secretmanager.versions.list',
  'secretmanager.versions.destroy',
  'secretmanager.versions.disable',
] as const;
/** Must not be held on the secret: its IAM. */
export const SECRET_EXCESS = [
  'secretmanager.secrets.getIamPolicy',
  'secretmanager.secrets.setIamPolicy',
] as const;

/** Resource Manager's answer for the project. */
export type ProjectRightsAnswer =
  | { readonly kind: 'held'; readonly permissions: readonly string[] }
  /** 403: the caller may see nothing of the project (it holds no role there, or it does not exist). */
  | { readonly kind: 'no-access'; readonly message: string }
  /** The Resource Manager API is off in the project the job's calls are billed to. */
  | { readonly kind: 'api-off'; readonly message: string }
  | { readonly kind: 'failed'; readonly detail: string };

/** What testing a hyperfleet-* secret of the project gave. */
export type SecretRightsAnswer =
  | { readonly kind: 'tested'; readonly secret: string; readonly held: readonly string[] }
  /** GetSecret answered NOT_FOUND for each: secrets.get is granted there, but nothing to test on yet. */
  | { readonly kind: 'none-exists'; readonly tried: readonly string[] }
  | { readonly kind: 'no-clusters'; readonly why: string }
  /** GetSecret answered PERMISSION_DENIED: the job may not even read its own secrets. */
  | { readonly kind: 'denied'; readonly secret: string; readonly message: string }
  | { readonly kind: 'failed'; readonly detail: string };

const onboard = (project: string) =>
  `Onboard the project as docs/deployment.md, "${ONBOARDING_SECTION}" says: apply the module pullsecret-tenant-project for ${project} or its folder (it grants the job's custom role with the hyperfleet-* condition there); a grant edited by hand is restored the same way.`;

const list = (permissions: readonly string[]) => permissions.join(', ');

/** The job's rights on the customer project itself (pure). */
export function judgeProjectRights(
  project: string,
  answer: ProjectRightsAnswer,
  identity: string,
): CheckResult {
  const name = `secret-manager ${project} project`;
  switch (answer.kind) {
    case 'held': {
      const missing = PROJECT_REQUIRED.filter((p) => !answer.permissions.includes(p));
      const excess = PROJECT_EXCESS.filter((p) => answer.permissions.includes(p));
      if (missing.length > 0)
        return fail(name, `missing ${list(missing)} on projects/${project}`, {
          problem: `The job may not create its secrets in ${project} (${list(missing)}): every first run for a cluster there fails PermissionDenied.`,
          resource: `projects/${project}: the binding of ${identity} to the custom role pullSecretManager`,
          action: onboard(project),
        });
      if (excess.length > 0)
        return fail(
          name,
          `holds ${list(excess)} on projects/${project}, which the job never needs`,
          {
            problem: `The job's identity holds ${list(excess)} in ${project}: it could list or re-grant every secret of the customer, beyond its own.`,
            resource: `projects/${project}: a role binding of ${identity} other than the custom role (gcloud projects get-iam-policy ${project} --flatten=bindings --filter="bindings.members:${identity}")`,
            action: `Remove that binding; the job needs only Terraform's custom role (docs/deployment.md, "Onboarding a customer project").`,
          },
        );
      return ok(
        name,
        `${list(PROJECT_REQUIRED)} held; none of ${list(PROJECT_EXCESS)} (Resource Manager testIamPermissions)`,
      );
    }
    case 'no-access':
      return fail(name, `Resource Manager: ${answer.message}`, {
        problem: `The job's identity holds no role in ${project} (or the project does not exist): it can write no pull secret there.`,
        resource: `projects/${project}`,
        action: onboard(project),
      });
    case 'api-off':
    case 'failed':
      return resourceManagerUnanswered(name, answer);
  }
}

/** A check that could not ask Resource Manager (its API off, or no answer): skipped, saying why. */
export function resourceManagerUnanswered(
  name: string,
  answer: Extract<ProjectRightsAnswer, { kind: 'api-off' | 'failed' }>,
): CheckResult {
  if (answer.kind === 'failed')
    return skip(name, `could not ask Resource Manager: ${answer.detail}`);
  return skip(name, `Resource Manager API is off: ${answer.message}`, {
    problem:
      'The doctor asks Resource Manager which project permissions the job holds; that API is not enabled.',
    resource: "cloudresourcemanager.googleapis.com in the job's platform project",
    action: `Enable it (gcloud services enable cloudresourcemanager.googleapis.com), which the pullsecret-adapter module's enable_apis does (${DOCTOR_SECTION}).`,
  });
}

/** The job's rights on its own secrets in the project, tested on one that exists (pure). */
export function judgeSecretRights(
  project: string,
  answer: SecretRightsAnswer,
  identity: string,
): CheckResult {
  const name = `secret-manager ${project} secrets`;
  switch (answer.kind) {
    case 'tested': {
      const missing = SECRET_REQUIRED.filter((p) => !answer.held.includes(p));
      const excess = SECRET_EXCESS.filter((p) => answer.held.includes(p));
      if (missing.length > 0)
        return fail(name, `missing ${list(missing)} on ${answer.secret}`, {
          problem: `The job lacks ${list(missing)} on its own secrets in ${project}: runs for clusters there fail PermissionDenied.`,
          resource: `${answer.secret}: ${identity}'s custom role and its condition (resource.name.startsWith("projects/NUMBER/secrets/hyperfleet-"))`,
          action: onboard(project),
        });
      if (excess.length > 0)
        return fail(name, `holds ${list(excess)} on ${answer.secret}`, {
          problem: `The job's identity may read or change who may access its secrets in ${project} (${list(excess)}).`,
          resource: `${answer.secret} and projects/${project}: a binding of ${identity} beyond the custom role`,
          action: `Remove that binding (gcloud secrets get-iam-policy and gcloud projects get-iam-policy ${project}); docs/deployment.md, "Onboarding a customer project".`,
        });
      return ok(
        name,
        `all ${SECRET_REQUIRED.length} per-secret permissions held on ${answer.secret}; no IAM permission`,
      );
    }
    case 'none-exists':
      return skip(
        name,
        `no hyperfleet-* secret exists in ${project} yet (tried ${list(answer.tried)}; GetSecret answered NOT_FOUND, so secrets.get is granted): the other per-secret rights can be tested once the job wrote one (TestIamPermissions answers nothing for a secret that does not exist)`,
      );
    case 'no-clusters':
      return skip(name, `no secret to test on: ${answer.why}`, {
        problem:
          'The per-secret rights are tested on an existing hyperfleet-* secret of a known cluster.',
        resource: `projects/${project}`,
        action: 'Pass --cluster ID of a cluster whose pull secret is in this project.',
      });
    case 'denied':
      return fail(name, `GetSecret on ${answer.secret}: ${answer.message}`, {
        problem: `The job may not read its own secrets in ${project}: every run there fails PermissionDenied.`,
        resource: `${answer.secret}: ${identity}'s custom role and its condition`,
        action: onboard(project),
      });
    case 'failed':
      return skip(name, `could not test: ${answer.detail}`);
  }
}
