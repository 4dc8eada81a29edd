import { skip, type CheckResult } from './check';
import type { DoctorContext } from './doctor-context';
import { GKE_ASKED, judgeGkeIam } from './gke-iam-check';
import { restBase } from './google-rest';
import { testProjectPermissions } from './secret-manager-probe';

/**
 * GKE's IAM on each management cluster's project, asked with the job's own rights (Resource
 * Manager projects.testIamPermissions needs none: any caller may ask about itself). The projects
 * are `--management-project`, else the platform project: the job's configuration names a GKE
 * endpoint, not its project.
 */
export async function checkGkeIam(
  context: Pick<DoctorContext, 'config' | 'args'>,
  token: string,
  identity: string,
): Promise<CheckResult[]> {
  const { config, args } = context;
  const google = Object.values(config.managementClusters).some((a) => a.kind === 'google');
  if (!google) return [];
  const projects =
    args.managementProjects.length > 0
      ? args.managementProjects
      : config.platformProject
        ? [config.platformProject]
        : [];
  const source =
    args.managementProjects.length > 0
      ? '--management-project'
      : 'the platform project; pass --management-project for clusters in other projects';
  if (projects.length === 0)
    return [
      skip('gke-iam', 'no management cluster project known', {
        problem:
          "GKE's IAM can restore Secret reads the job's RBAC leaves out; the doctor checks it on the clusters' projects.",
        resource: 'GOOGLE_CLOUD_PROJECT, or the --management-project flag',
        action: 'Pass --management-project P for each management cluster project.',
      }),
    ];
  const base = restBase('cloudresourcemanager.googleapis.com', config.emulators.resourceManager);
  return Promise.all(
    projects.map(async (project) =>
      judgeGkeIam(
        project,
        await testProjectPermissions({
          base,
          project,
          token,
          timeoutMs: config.gcpTimeoutMs,
          permissions: GKE_ASKED,
        }),
        identity,
        source,
      ),
    ),
  );
}
