import { parseArgs } from 'node:util';
import { clusterId, gcpProjectId, namespaceName } from '../../../shared/config/gcp-names';

export const DOCTOR_USAGE = `Usage: pull-secret doctor [--project P]... [--all-projects] [--cluster ID]...
                          [--management-project P]... [--sentinel-topic T] [--region R]
                          [--name-prefix P] [--namespace NS]
  --project P         check Secret Manager in customer project P (repeatable)
  --all-projects      check every customer project the HyperFleet API's clusters name
  --cluster ID        test the per-secret rights on this cluster's hyperfleet-ID-pull-secret (repeatable;
                      default: the project's first clusters that have one)
  --management-project P
                      a management cluster's project (repeatable): the job must hold no
                      container.secrets.* there through IAM (default GOOGLE_CLOUD_PROJECT)
  --sentinel-topic T  Sentinel's topic (default SENTINEL_TOPIC, else hyperfleet-system-clusters in
                      GOOGLE_CLOUD_PROJECT)
  --region R          the region of the triggers (default: the metadata server's, where the job runs)
  --name-prefix P     Terraform's name_prefix (default: CLOUD_RUN_JOB without -job, else pullsecret)
  --namespace NS      where the job's Secret rights are checked (default: the namespace
                      MANAGEMENT_NAMESPACE_TEMPLATE gives the cluster id hyperfleet-doctor, e.g.
                      clusters-hyperfleet-doctor; with per-namespace RBAC give a bound namespace)
Prints a table of checks (OK, FAIL, SKIP) with a fix for each failure; exit 0 when none failed,
1 when one did, 2 for bad arguments or configuration. See docs/operations.md, "pull-secret doctor".`;

/** What the operator asked the doctor to check. */
export interface DoctorArgs {
  readonly projects: readonly string[];
  readonly allProjects: boolean;
  readonly clusters: readonly string[];
  /** The management clusters' projects, where GKE's IAM is checked (empty: the platform project). */
  readonly managementProjects: readonly string[];
  readonly sentinelTopic?: string;
  readonly region?: string;
  readonly namePrefix?: string;
  /** Unset: the layout's namespace for a probe cluster (DoctorConfig.probeNamespace). */
  readonly namespace?: string;
  readonly help: boolean;
}

/** Bad doctor flags: printed with the usage, exit 2. */
export class DoctorUsageError extends Error {}

const NAME_PREFIX = /^[a-z][a-z0-9-]{1,13}[a-z0-9]$/;
const REGION = /^[a-z]+-[a-z]+[0-9]+$/;

/** Parses the doctor's flags (pure); throws DoctorUsageError naming the bad one. */
export function parseDoctorArgs(argv: readonly string[]): DoctorArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        project: { type: 'string', multiple: true, default: [] },
        'all-projects': { type: 'boolean', default: false },
        cluster: { type: 'string', multiple: true, default: [] },
        'management-project': { type: 'string', multiple: true, default: [] },
        'sentinel-topic': { type: 'string' },
        region: { type: 'string' },
        'name-prefix': { type: 'string' },
        namespace: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new DoctorUsageError(error instanceof Error ? error.message : String(error));
  }
  const problems = [
    ...values.project
      .filter((p) => !gcpProjectId.safeParse(p).success)
      .map((p) => `--project ${JSON.stringify(p)} is not a project id`),
    ...values.cluster
      .filter((c) => !clusterId.safeParse(c).success)
      .map((c) => `--cluster ${JSON.stringify(c)} is not a cluster id`),
    ...values['management-project']
      .filter((p) => !gcpProjectId.safeParse(p).success && !/^[1-9][0-9]{0,18}$/.test(p))
      .map((p) => `--management-project ${JSON.stringify(p)} is not a project id or number`),
    ...(values.region !== undefined && !REGION.test(values.region)
      ? [`--region ${JSON.stringify(values.region)} is not a region such as us-central1`]
      : []),
    ...(values['name-prefix'] !== undefined && !NAME_PREFIX.test(values['name-prefix'])
      ? [`--name-prefix ${JSON.stringify(values['name-prefix'])} is not a Terraform name_prefix`]
      : []),
    ...(values.namespace !== undefined && !namespaceName.safeParse(values.namespace).success
      ? [`--namespace ${JSON.stringify(values.namespace)} is not a namespace name`]
      : []),
    ...(values['all-projects'] && values.project.length > 0
      ? ['give --project or --all-projects, not both']
      : []),
  ];
  if (problems.length > 0) throw new DoctorUsageError(problems.join('; '));
  return {
    projects: [...new Set(values.project)],
    allProjects: values['all-projects'],
    clusters: [...new Set(values.cluster)],
    managementProjects: [...new Set(values['management-project'])],
    ...(values['sentinel-topic'] ? { sentinelTopic: values['sentinel-topic'] } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values['name-prefix'] ? { namePrefix: values['name-prefix'] } : {}),
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    help: values.help,
  };
}
