// Issue 39 item 5 (7): the dashboard's JSON must come back from the Monitoring API as it was sent,
// or every plan shows a change. The provider's diff suppression for dashboard_json (v7.45.0
// google/services/monitoring/resource_monitoring_dashboard.go) drops from the API's JSON the keys
// the configuration lacks and compares the rest exactly; it is ported below. The pure module
// modules/pullsecret-adapter/modules/dashboard is rendered by real `terraform apply`, offline, and
// every key it writes is held to the keys the API echoes, none with a default value (proto3 JSON
// leaves those out: https://protobuf.dev/programming-guides/json/).
import path from 'node:path';
import { loadModules, moduleAt, resourceBody, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

const MODULE = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/modules/dashboard');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** removeComputedKeys of resource_monitoring_dashboard.go: drops from `old` (the API's) what `config` lacks. */
function removeComputedKeys(old: JsonObject, config: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(old)) {
    if (config[key] === undefined || config[key] === null) {
      delete old[key];
      continue;
    }
    if (isObject(value)) {
      old[key] = removeComputedKeys(value, config[key] as JsonObject);
      continue;
    }
    if (Array.isArray(value)) {
      const configItems = config[key] as Json[];
      value.forEach((item, i) => {
        if (isObject(item) && configItems.length > i) value[i] = removeComputedKeys(item, configItems[i] as JsonObject);
      });
    }
  }
  return old;
}

const deepEqual = (a: Json, b: Json): boolean => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key]!)]));
  return value;
}

/** monitoringDashboardDiffSuppress: true when the plan shows no change between the API's JSON and the configuration. */
const suppressed = (api: JsonObject, config: JsonObject): boolean =>
  deepEqual(removeComputedKeys(structuredClone(api), config), config);

/** A proto3 default: what the API leaves out of its answer (and so must not be written). */
const isDefault = (value: Json): boolean =>
  value === 0 || value === '' || value === false || value === '0s' || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0) || (typeof value === 'string' && value.endsWith('_UNSPECIFIED'));

/** What the API returns for a dashboard it was sent: defaults dropped, and its own fields added. */
function apiAnswer(sent: JsonObject): JsonObject {
  const withoutDefaults = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(withoutDefaults);
    if (!isObject(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([, v]) => !isDefault(v)).map(([k, v]) => [k, withoutDefaults(v)]));
  };
  const answer = withoutDefaults(structuredClone(sent)) as JsonObject;
  // Fields the API fills in (as the exports in provider issues #7242 and #16173 show).
  Object.assign(answer, { name: 'projects/123/dashboards/abc', etag: '0123abcd' });
  for (const tile of ((answer.mosaicLayout as JsonObject).tiles as JsonObject[])) {
    const chart = (tile.widget as JsonObject).xyChart as JsonObject;
    Object.assign(chart, { chartOptions: { mode: 'COLOR' }, yAxis: { label: 'y1Axis', scale: 'LINEAR' } });
    for (const dataSet of chart.dataSets as JsonObject[]) Object.assign(dataSet, { plotType: 'LINE', targetAxis: 'Y1', minAlignmentPeriod: '60s' });
  }
  return answer;
}

/** Every leaf's path, array indices written as [], with its value. */
function leaves(value: Json, at = ''): [string, Json][] {
  if (Array.isArray(value)) return value.length === 0 ? [[at, value]] : value.flatMap((item) => leaves(item, `${at}[]`));
  if (isObject(value)) return Object.keys(value).length === 0 ? [[at, value]] : Object.entries(value).flatMap(([key, item]) => leaves(item, at ? `${at}.${key}` : key));
  return [[at, value]];
}

/** The keys the module may write: each one the API returns verbatim (projects.dashboards reference). */
const TILE = 'mosaicLayout.tiles[]';
const QUERY = `${TILE}.widget.xyChart.dataSets[].timeSeriesQuery.timeSeriesFilter`;
const ROUND_TRIP = new Set([
  'displayName',
  'mosaicLayout.columns',
  `${TILE}.xPos`,
  `${TILE}.yPos`,
  `${TILE}.width`,
  `${TILE}.height`,
  `${TILE}.widget.title`,
  `${QUERY}.filter`,
  `${QUERY}.aggregation.alignmentPeriod`,
  `${QUERY}.aggregation.perSeriesAligner`,
  `${QUERY}.aggregation.crossSeriesReducer`,
  `${QUERY}.aggregation.groupByFields[]`,
  `${TILE}.widget.xyChart.dataSets[].legendTemplate`,
]);

/** The latency charts' three data sets: percentiles of the merged distributions, one line per operation and percentile. */
const PERCENTILES = [50, 95, 99].map((p) => ({
  aligner: 'ALIGN_DELTA',
  reducer: `REDUCE_PERCENTILE_${p}`,
  legend: `p${p} \${metric.labels.operation}`,
}));

/** The adapter's tiles, as monitoring.tf passes them. */
const TILES = [
  { title: 'Job outcomes by reason', metric: 'pullsecret_job_outcomes', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.outcome', 'metric.label.reason'] },
  { title: 'Job duration p99 (ms)', metric: 'pullsecret_job_duration', aligner: 'ALIGN_PERCENTILE_99', reducer: 'REDUCE_MAX' },
  { title: 'Adapter decisions', metric: 'pullsecret_adapter_decisions', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.decision'] },
  { title: 'Status writes (stored / discarded)', metric: 'pullsecret_status_writes', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.status_write'] },
  { title: 'Events dropped after the retry bound', metric: 'pullsecret_retry_bound_exceeded', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.service'] },
  { title: 'Job failures by cluster', metric: 'pullsecret_job_failures', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.cluster_id'] },
  { title: 'Secret Manager calls by operation and status', metric: 'pullsecret_gcp_api_calls', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.operation', 'metric.label.status_code'] },
  { title: 'Kubernetes API calls by operation and status', metric: 'pullsecret_k8s_api_calls', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.operation', 'metric.label.status_code'] },
  { title: 'Secret Manager latency p50 / p95 / p99 by operation (ms)', metric: 'pullsecret_gcp_api_duration', group_by: ['metric.label.operation'], series: PERCENTILES },
  { title: 'Kubernetes API latency p50 / p95 / p99 by operation (ms)', metric: 'pullsecret_k8s_api_duration', group_by: ['metric.label.operation'], series: PERCENTILES },
  { title: 'Secret versions created', metric: 'pullsecret_secret_versions_created', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM' },
  { title: 'Clusters waiting past the threshold, by state', metric: 'pullsecret_clusters_waiting_too_long', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.waiting'] },
  { title: 'Permanent failures reported, by reason', metric: 'pullsecret_permanent_failures', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.reason'] },
  { title: 'Batch tasks that left clusters failed (rotation, resync)', metric: 'pullsecret_batch_tasks_with_failures', aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM', group_by: ['metric.label.reason'] },
];

/** The data sets of a chart, in order. */
const dataSetsOf = (tile: JsonObject): JsonObject[] => ((tile.widget as JsonObject).xyChart as JsonObject).dataSets as JsonObject[];
const aggregationOf = (dataSet: JsonObject): JsonObject => ((dataSet.timeSeriesQuery as JsonObject).timeSeriesFilter as JsonObject).aggregation as JsonObject;

describeWithTool('terraform', 'the dashboard JSON (modules/dashboard, rendered by terraform offline)', () => {
  let harness: TerraformModuleHarness;
  let dashboard: JsonObject;
  const render = (values: Record<string, unknown>) => harness.apply({ display_name: 'Pull Secret Adapter', tiles: TILES, ...values });

  beforeAll(() => {
    harness = new TerraformModuleHarness(MODULE, ['display_name', 'tiles']);
    const result = render({});
    if (!result.ok) throw new Error(`terraform apply failed: ${result.diagnostics}`);
    dashboard = JSON.parse((result.outputs as { dashboard_json: string }).dashboard_json) as JsonObject;
  });
  afterAll(() => harness?.dispose());

  it('lays out one chart per tile, two per row, each on its metric', () => {
    const tiles = (dashboard.mosaicLayout as JsonObject).tiles as JsonObject[];
    expect(tiles.map((t) => [t.xPos ?? 0, t.yPos ?? 0, t.width, t.height])).toEqual(TILES.map((_, i) => [(i % 2) * 6, Math.floor(i / 2) * 4, 6, 4]));
    const filters = leaves(dashboard).filter(([at]) => at.endsWith('.filter')).map(([, value]) => value);
    expect(filters).toEqual(TILES.flatMap((tile) => (tile.series ?? [tile]).map(() => `metric.type="logging.googleapis.com/user/${tile.metric}"`)));
  });

  it('draws a tile with series as one data set per series, each with its aggregation and legend', () => {
    const tiles = (dashboard.mosaicLayout as JsonObject).tiles as JsonObject[];
    const latency = tiles[TILES.findIndex((tile) => tile.metric === 'pullsecret_gcp_api_duration')]!;
    expect(dataSetsOf(latency).map((set) => [aggregationOf(set), set.legendTemplate])).toEqual(
      PERCENTILES.map((p) => [{ alignmentPeriod: '60s', perSeriesAligner: p.aligner, crossSeriesReducer: p.reducer, groupByFields: ['metric.label.operation'] }, p.legend]),
    );
    // The legend reaches the JSON as the dashboard's own interpolation, not Terraform's.
    expect(dataSetsOf(latency)[2]!.legendTemplate).toBe('p99 ${metric.labels.operation}');
    // A tile without series has one data set and no legend (the API drops an empty one).
    expect(dataSetsOf(tiles[0]!)).toHaveLength(1);
    expect(dataSetsOf(tiles[0]!)[0]).not.toHaveProperty('legendTemplate');
  });

  it('writes only keys the API returns as sent, none holding a default value', () => {
    const written = leaves(dashboard);
    expect(written.length).toBeGreaterThan(40);
    expect(written.filter(([at]) => !ROUND_TRIP.has(at)).map(([at]) => at)).toEqual([]);
    expect(written.filter(([, value]) => isDefault(value)).map(([at, value]) => `${at} = ${JSON.stringify(value)}`)).toEqual([]);
    // What the view defaults to or the API fills in is left to it.
    for (const key of ['chartOptions', 'yAxis', 'plotType', 'targetAxis', 'minAlignmentPeriod', 'timeshiftDuration', 'thresholds'])
      expect(written.filter(([at]) => at.split('.').some((part) => part.replace('[]', '') === key))).toEqual([]);
  });

  it("plans no change against the API's answer (the provider's diff suppression, ported)", () => {
    expect(suppressed(apiAnswer(dashboard), dashboard)).toBe(true);
    // The port notices what a perpetual diff is made of: a zero position or an empty list the API drops.
    const tiles = (dashboard.mosaicLayout as JsonObject).tiles as JsonObject[];
    const zeroPosition = structuredClone(dashboard);
    ((zeroPosition.mosaicLayout as JsonObject).tiles as JsonObject[])[0]!.xPos = 0;
    expect(suppressed(apiAnswer(zeroPosition), zeroPosition)).toBe(false);
    const emptyGroup = structuredClone(dashboard);
    const aggregation = (((((emptyGroup.mosaicLayout as JsonObject).tiles as JsonObject[])[1]!.widget as JsonObject).xyChart as JsonObject).dataSets as JsonObject[])[0]!;
    ((aggregation.timeSeriesQuery as JsonObject).timeSeriesFilter as JsonObject).aggregation = { ...(((aggregation.timeSeriesQuery as JsonObject).timeSeriesFilter as JsonObject).aggregation as JsonObject), groupByFields: [] };
    expect(suppressed(apiAnswer(emptyGroup), emptyGroup)).toBe(false);
    expect(tiles.length).toBe(TILES.length);
  });

  it('refuses an unspecified aligner or reducer, which the API would not return', () => {
    const result = render({ tiles: [{ ...TILES[0], aligner: 'ALIGN_UNSPECIFIED' }] });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('not *_UNSPECIFIED');
    const inSeries = render({ tiles: [{ ...TILES[8], series: [{ aligner: 'ALIGN_DELTA', reducer: 'REDUCE_UNSPECIFIED' }] }] });
    expect(inSeries.ok).toBe(false);
    expect(inSeries.diagnostics).toContain('not *_UNSPECIFIED');
  });

  it('refuses a tile with both aligner and series, or with neither', () => {
    const both = render({ tiles: [{ ...TILES[8], aligner: 'ALIGN_RATE', reducer: 'REDUCE_SUM' }] });
    expect(both.ok).toBe(false);
    expect(both.diagnostics).toContain('either aligner and reducer');
    const neither = render({ tiles: [{ title: 'x', metric: 'm' }] });
    expect(neither.ok).toBe(false);
    expect(neither.diagnostics).toContain('either aligner and reducer');
  });
});

describe('the adapter module builds its dashboard with modules/dashboard', () => {
  let adapter: TfModule;
  beforeAll(async () => {
    adapter = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });

  it('passes exactly the tiles this test renders (each on its log-based metric) and uses the JSON as is', () => {
    const call = adapter.modules.dashboard!;
    expect(call.source).toBe('./modules/dashboard');
    // The HCL as written: $${ is Terraform's escape of a literal ${ (the dashboard's legend interpolation).
    const unescaped = (value: unknown): unknown => (typeof value === 'string' ? value.replaceAll('$${', '${') : value);
    const tiles = (call.tiles as Record<string, unknown>[]).map((tile) => ({
      ...tile,
      metric: String(tile.metric).replace(/^\$\{google_logging_metric\.([a-z0-9_]+)\[each\.key\]\.name\}$/, 'pullsecret_$1'),
      ...(tile.series ? { series: (tile.series as Record<string, unknown>[]).map((set) => ({ ...set, legend: unescaped(set.legend) })) } : {}),
    }));
    expect(tiles).toEqual(TILES);
    expect(resourceBody(adapter, 'google_monitoring_dashboard', 'overview').dashboard_json).toBe('${module.dashboard[each.key].dashboard_json}');
  });
});
