import { loadModules, moduleAt, resourceBody, type TfModule } from './terraform';

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

/** The modules, parsed once per test file (the .tf files do not change during a run). */
let parsed: Promise<TfModule[]> | undefined;

/** Where a module's log-based metric runs: the values its filters interpolate. */
export interface MetricPlace {
  readonly project: string;
  readonly namePrefix: string;
  /** Values of `var.monitoring`'s attributes a filter interpolates (thresholds). */
  readonly monitoring?: Readonly<Record<string, number | string>>;
}

/**
 * A log-based metric of modules/pullsecret-adapter as `terraform plan` would render it: its
 * filter, label extractors and value extractor, with every `${local.NAME}` that is a plain string,
 * `${var.project_id}`, `${var.name_prefix}` and `${var.monitoring.NAME}` (from `place.monitoring`)
 * filled in. Anything else (a function call, a
 * resource reference) throws, so a filter this cannot render is not judged half-rendered.
 */
export async function renderedMetric(
  name: string,
  place: MetricPlace,
): Promise<{ filter: string; labelExtractors: Record<string, string>; valueExtractor?: string }> {
  const module = moduleAt(await (parsed ??= loadModules()), 'modules/pullsecret-adapter');
  const render = (text: string, depth = 0): string => {
    if (depth > 5) throw new Error(`locals nest too deep: ${text}`);
    const out = text
      .replace(/\$\{local\.([a-z0-9_]+)\}/g, (_, local: string) => {
        const value = module.locals[local];
        if (typeof value !== 'string' || /^\$\{[a-z_]+\(/.test(value))
          throw new Error(`local.${local} is not a plain string: ${String(value)}`);
        return render(value, depth + 1);
      })
      .replaceAll('${var.project_id}', place.project)
      .replaceAll('${var.name_prefix}', place.namePrefix)
      .replace(/\$\{var\.monitoring\.([a-z0-9_]+)\}/g, (_, name: string) => {
        const value = place.monitoring?.[name];
        if (value === undefined) throw new Error(`var.monitoring.${name} is not given`);
        return String(value);
      });
    if (out.includes('${')) throw new Error(`unrendered Terraform in ${out}`);
    return out;
  };
  const body = resourceBody(module, 'google_logging_metric', name);
  const extractors = (body.label_extractors ?? {}) as Record<string, string>;
  return {
    filter: render(String(body.filter)),
    labelExtractors: Object.fromEntries(
      Object.entries(extractors).map(([label, value]) => [label, render(value)]),
    ),
    ...(body.value_extractor ? { valueExtractor: render(String(body.value_extractor)) } : {}),
  };
}

/**
 * What an extractor `EXTRACT(path)` gives for an entry (the value at the path, as a string), or
 * undefined when the field is absent. REGEXP_EXTRACT is not read here: it throws.
 */
export function extracted(extractor: string, entry: unknown): string | undefined {
  const match = /^EXTRACT\(([A-Za-z_][\w.]*)\)$/.exec(extractor);
  if (!match) throw new Error(`unsupported extractor ${extractor}`);
  let value: unknown = entry;
  for (const key of match[1]!.split('.'))
    value =
      typeof value === 'object' && value !== null
        ? (value as Record<string, unknown>)[key]
        : undefined;
  return value === undefined || value === null ? undefined : String(value);
}
