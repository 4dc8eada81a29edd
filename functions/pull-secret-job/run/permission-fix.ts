/** The section of docs/deployment.md on granting the job a customer project (its heading). */
export const ONBOARDING_SECTION = 'Onboarding a customer project';

/**
 * What to do when Secret Manager refuses the job in the customer project it writes to: the
 * project is not onboarded (no pullsecret-tenant-project binding on it or its folder, so the
 * job holds no role there), or its grant was changed. Undefined for other resources (the platform's default pull
 * secret is granted on its own, see docs/deployment.md).
 */
export function customerProjectPermissionFix(
  resource: string,
  customerProject: string,
): string | undefined {
  if (
    !resource.startsWith(`projects/${customerProject}/`) &&
    resource !== `projects/${customerProject}`
  )
    return undefined;
  return `The job's service account lacks this right in the customer project ${customerProject}: onboard the project as docs/deployment.md, "${ONBOARDING_SECTION}" says (apply the module pullsecret-tenant-project for it or its folder), then check with \`pull-secret doctor --project ${customerProject}\`.`;
}
