/** README's section on granting the job a customer project (its title, as other sections link it). */
export const ONBOARDING_SECTION = 'Onboarding a customer project';

/**
 * What to do when Secret Manager refuses the job in the customer project it writes to: the
 * project is not onboarded (not in Terraform's target_project_ids, so the job holds no role
 * there), or its grant was changed. Undefined for other resources (the platform's default pull
 * secret is granted on its own, see README, Deployment).
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
  return `The job's service account lacks this right in the customer project ${customerProject}: onboard the project as README's section "${ONBOARDING_SECTION}" says (add it to target_project_ids and apply Terraform), then check with \`pull-secret doctor --project ${customerProject}\`.`;
}
