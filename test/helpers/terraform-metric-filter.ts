import { loadModules, moduleAt, resourceBody } from './terraform';

/**
 * Terraform's `executions_ended_abnormally` log-based metric filter
 * (modules/pullsecret-adapter/execution-health.tf), rendered for one job as `terraform plan` would:
 * the `execution_finished_filter` local's parts joined, the job name and project filled in. For
 * evaluating on the entries an emulator writes (test/helpers/logging-filter.ts).
 */
export async function executionsEndedAbnormallyFilter(jobResourceName: string): Promise<string> {
  const module = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  const parts = [
    ...String(module.locals.execution_finished_filter).matchAll(/"((?:[^"\\]|\\.)*)"/g),
  ]
    .map((m) => JSON.parse(`"${m[1]!}"`) as string)
    .filter((part) => part !== ' AND ');
  const [, project, , , , job] = jobResourceName.split('/');
  const filter = String(
    resourceBody(module, 'google_logging_metric', 'executions_ended_abnormally').filter,
  )
    .replace('${local.execution_finished_filter}', parts.join(' AND '))
    .replaceAll('${local.job_name}', job!)
    .replaceAll('${var.project_id}', project!);
  if (filter.includes('${')) throw new Error(`unrendered Terraform in the filter: ${filter}`);
  return filter;
}
