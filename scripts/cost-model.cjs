// What a fleet costs a month and which quota stops it, from three committed sources only: the
// bench's reference run (bench/reference.json: executions and events per cluster and day from the
// fleet-days simulation, job and adapter walls, Secret Manager calls, log bytes and spans), the
// price and quota table (bench/prices.json, each figure with its page and date) and Terraform's
// defaults (job and adapter sizes, alert conditions). scripts/render-bench-figures.cjs renders the
// two tables into docs/performance.md; test/unit/docs/cost-model.test.ts checks the model.
const fs = require('node:fs');
const path = require('node:path');

const SIZES = [1000, 10000, 100000];
const DAYS_PER_MONTH = 365.25 / 12;
const GIB = 2 ** 30;
const TIB = 2 ** 40;

/** The job's SECRET_VERSION_RETENTION default (functions/pull-secret-job/config/job-env.ts; the test keeps them equal). */
const DEFAULT_SECRET_VERSION_RETENTION = 1;

/**
 * What the bench cannot measure here, each with why the figure is safe. Changing one changes the
 * tables, so they live beside the model, not in prose.
 */
const ASSUMPTIONS = {
  jobStartSeconds: {
    label: 'job start on Cloud Run',
    value: 10,
    unit: 's',
    why: 'billed container time beyond the local wall (container start, Google token, network round trips); not measured on Google Cloud, so taken high',
  },
  requestLogBytes: {
    label: 'request log entry',
    value: 1024,
    unit: 'bytes',
    why: 'Cloud Run logs every request to a function; not measurable locally',
  },
  reporterSeconds: {
    label: 'reporter per message',
    value: 0.1,
    unit: 's',
    why: 'a GetExecution or a result, a GetSecret and a status write, within the 100 ms minimum',
  },
  pubsubRequestBytes: {
    label: 'Pub/Sub request',
    value: 1000,
    unit: 'bytes',
    why: 'the minimum Pub/Sub bills a publish or push',
  },
};

/**
 * Secret Manager requests of one unchanged run by quota (docs/design/job-protocol.md, "What the
 * One apply, in sequence"): GetSecret and the post-write GetSecret are reads, the claim's UpdateSecret
 * a write, the compare an access; the reporter adds one GetSecret. The test checks that the job's
 * share adds up to the reference run's measured calls.
 */
const UNCHANGED_RUN_REQUESTS = { read: 2, write: 1, access: 1 };
const REPORTER_REQUESTS = { read: 1, write: 0, access: 0 };
/** Messages the reporter handles per execution: the job's result and the execution-finished entry. */
const REPORTS_PER_EXECUTION = 2;
/**
 * Cloud Tasks billable operations per execution ("an API call or push delivery attempt",
 * https://cloud.google.com/tasks/pricing): the adapter's CreateTask and the queue's one dispatch
 * (RunJob). A duplicate's CreateTask (ALREADY_EXISTS), a GetTask of a launch queued longer than
 * LAUNCH_CHECK_AFTER and a retried dispatch add to it, rare in the steady state.
 */
const TASK_OPERATIONS_PER_EXECUTION = 2;

// ---- inputs -------------------------------------------------------------------------------------

function figures(reference, key) {
  const section = reference.sections[key];
  if (!section) throw new Error(`bench/reference.json has no "${key}" section`);
  return section.figures;
}
/**
 * The daily resync as one batched execution (the bench's `rotation` section, simulated from the
 * job's calls): billed task-seconds per cluster at the largest fleet simulated. Tasks hold a fixed
 * number of clusters, so the figure does not grow or shrink with the fleet; null when the
 * reference has no rotation section (the per-cluster resync is then priced).
 */
function batchedResync(reference) {
  const rows = reference.sections.rotation?.figures;
  if (!rows || rows.length === 0) return null;
  const largest = rows.reduce((a, b) => (b.clusters > a.clusters ? b : a));
  return {
    clusters: largest.clusters,
    tasks: largest.resync.tasks,
    executionsPerDay: largest.resync.executionsPerDay,
    taskSecondsPerCluster: largest.resync.taskSecondsPerCluster,
    clustersPerTask: largest.parameters.clustersPerTask,
    taskStartSeconds: largest.parameters.taskStartMs / 1000,
  };
}
const midpoint = (value) => (Array.isArray(value) ? (value[0] + value[1]) / 2 : value);

/** The figures the model takes from the reference run. */
function measuredInputs(reference) {
  const days = figures(reference, 'fleetDays');
  const job = figures(reference, 'job').find((j) => j.kind === 'unchanged');
  const adapter = figures(reference, 'adapter');
  const upToDate = adapter.find((a) => a.scenario === 'up-to-date' && a.concurrency === 1);
  const launch = adapter.find((a) => a.scenario === 'launch' && a.concurrency === 1);
  const volume = (unit) => {
    const row = figures(reference, 'telemetryVolume').find((t) => t.unit === unit);
    if (!row) throw new Error(`bench/reference.json telemetryVolume has no "${unit}" row`);
    return { logBytes: row.logBytesP50, spans: row.spansP50 };
  };
  return {
    clustersSimulated: days.clusters,
    executionsPerClusterPerDay: days.steadyExecutionsPerClusterPerDay,
    eventsPerClusterPerDay: days.eventsPerClusterPerDay,
    jobWallSeconds: job.wallMsP50 / 1000,
    jobSecretManagerCalls: job.secretManagerCalls,
    upToDateEventSeconds: 1 / midpoint(upToDate.eventsPerSecond),
    launchEventSeconds: launch.p50Ms / 1000,
    telemetry: {
      upToDateEvent: volume('adapter event, up to date'),
      launchEvent: volume('adapter event, launch'),
      execution: volume('job run, unchanged'),
      result: volume('reporter result message'),
    },
  };
}

const gib = (size) => {
  const m = /^(\d+)(Mi|Gi)$/.exec(size);
  if (!m) throw new Error(`cannot read the size "${size}"`);
  return m[2] === 'Gi' ? Number(m[1]) : Number(m[1]) / 1024;
};

/** Terraform's defaults the bill depends on (terraform/modules/pullsecret-adapter). */
function terraformDefaults(root) {
  const dir = path.join(root, 'terraform', 'modules', 'pullsecret-adapter');
  const variables = fs.readFileSync(path.join(dir, 'variables.tf'), 'utf8');
  const block = (name) => {
    const at = variables.indexOf(`variable "${name}" {`);
    if (at < 0) throw new Error(`variables.tf has no variable "${name}"`);
    const end = variables.indexOf('\nvariable "', at + 1);
    return variables.slice(at, end < 0 ? undefined : end);
  };
  const optional = (text, attribute) => {
    const m = new RegExp(`\\n\\s*${attribute}\\s*=\\s*optional\\(\\w+, "([^"]+)"\\)`).exec(text);
    if (!m) throw new Error(`variables.tf: no default for ${attribute}`);
    return m[1];
  };
  const optionalNumber = (text, attribute) => {
    const m = new RegExp(`\\n\\s*${attribute}\\s*=\\s*optional\\(number, ([\\d.]+)\\)`).exec(text);
    if (!m) throw new Error(`variables.tf: no default for ${attribute}`);
    return m[1];
  };
  const defaultOf = (text) => {
    const m = /\n\s*default\s*=\s*(\S+)/.exec(text);
    if (!m) throw new Error('variables.tf: a variable without a default');
    return m[1];
  };
  const tf = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.tf'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  return {
    jobCpu: Number(optional(block('job'), 'cpu')),
    jobMemoryGib: gib(optional(block('job'), 'memory')),
    adapterCpu: 1,
    adapterMemoryGib: gib(optional(block('adapter'), 'memory')),
    launchQueueRatePerMinute: Number(optionalNumber(block('launch_queue'), 'rate_per_minute')),
    adapterMaxInstances: Number(optionalNumber(block('adapter'), 'max_instances')),
    alertConditions: (tf.match(/^\s*conditions \{/gm) ?? []).length,
    traceSampleRatio: /true/.test(defaultOf(block('tracing_enabled')))
      ? Number(defaultOf(block('tracing_sampler_ratio')))
      : 0,
  };
}

// ---- the bill -----------------------------------------------------------------------------------

const billed = (seconds) => Math.max(0.1, Math.ceil(seconds * 10 - 1e-9) / 10);

/**
 * The monthly bill as lines: `perCluster` dollars per cluster and month, `fixed` dollars a month
 * whatever the fleet. `design` overrides what differs in another design (executions per cluster and
 * day, active versions per cluster, the wall of an event that launches, Cloud Tasks operations per
 * execution, and `batchedResync`: the daily resync as one batched execution, whose task-seconds
 * replace the resync's per-cluster executions on the job line).
 */
function monthlyLines(inputs, prices, tf, design = {}) {
  const p = (key) => prices.prices[key].usd;
  const a = (key) => ASSUMPTIONS[key].value;
  const executions =
    (design.executionsPerClusterPerDay ?? inputs.executionsPerClusterPerDay) * DAYS_PER_MONTH;
  const events = inputs.eventsPerClusterPerDay * DAYS_PER_MONTH;
  const versions = design.versionsPerCluster ?? DEFAULT_SECRET_VERSION_RETENTION;
  const t = inputs.telemetry;
  const fn = (seconds, cpu, memory) =>
    billed(seconds) *
    (cpu * p('cloudRunRequestVcpuSecond') + memory * p('cloudRunRequestGibSecond'));
  const upToDate = fn(inputs.upToDateEventSeconds, tf.adapterCpu, tf.adapterMemoryGib);
  const launchSeconds = design.launchEventSeconds ?? inputs.launchEventSeconds;
  const launchExtra = fn(launchSeconds, tf.adapterCpu, tf.adapterMemoryGib) - upToDate;
  const request = p('cloudRunRequests') / 1e6;
  const jobSeconds = billed(inputs.jobWallSeconds + a('jobStartSeconds'));
  const jobSecondPrice =
    tf.jobCpu * p('cloudRunJobVcpuSecond') + tf.jobMemoryGib * p('cloudRunJobGibSecond');
  const batch = design.batchedResync ?? null;
  // Batched, the resync (one a cluster and day at RESYNC_INTERVAL 24h, all of fleet-days' steady
  // executions) leaves the per-cluster executions; what remains of them are changes.
  const perClusterExecutions = batch ? Math.max(0, executions - DAYS_PER_MONTH) : executions;
  const jobLine = batch
    ? {
        how: `1 batched resync execution a day (${count(batch.tasks)} tasks of ${count(batch.clustersPerTask)} clusters at ${count(batch.clusters)}): ${batch.taskSecondsPerCluster} task-s per cluster a day × ${tf.jobCpu} vCPU, ${tf.jobMemoryGib} GiB${perClusterExecutions > 0 ? `, and ${round(perClusterExecutions, 1)} executions a month × ${jobSeconds} s` : ''}`,
        perCluster:
          (DAYS_PER_MONTH * batch.taskSecondsPerCluster + perClusterExecutions * jobSeconds) *
          jobSecondPrice,
      }
    : {
        how: `${round(executions, 1)} a month × ${jobSeconds} s × ${tf.jobCpu} vCPU, ${tf.jobMemoryGib} GiB`,
        perCluster: executions * jobSeconds * jobSecondPrice,
      };
  // The reporter gets two messages an execution: the job's result and Cloud Run's
  // execution-finished entry (terraform/modules/pullsecret-adapter/pubsub.tf); both priced as the
  // measured result message.
  const reports = executions * REPORTS_PER_EXECUTION;
  const taskOperations =
    executions * (design.taskOperationsPerExecution ?? TASK_OPERATIONS_PER_EXECUTION);
  const logBytes =
    events * (t.upToDateEvent.logBytes + a('requestLogBytes')) +
    executions * (t.launchEvent.logBytes - t.upToDateEvent.logBytes + t.execution.logBytes) +
    reports * (t.result.logBytes + a('requestLogBytes'));
  const spans =
    events * t.upToDateEvent.spans +
    executions * (t.launchEvent.spans - t.upToDateEvent.spans + t.execution.spans) +
    reports * t.result.spans;
  return [
    {
      line: 'Secret Manager active versions',
      billedTo: 'customer projects',
      how: `${versions.toLocaleString('en-US', { maximumFractionDigits: 0 })} per cluster`,
      perCluster: versions * p('secretManagerActiveVersion'),
    },
    {
      line: 'Secret Manager access operations',
      billedTo: 'customer projects',
      how: `${UNCHANGED_RUN_REQUESTS.access} AccessSecretVersion an execution (reads and writes are free)`,
      perCluster:
        (executions * UNCHANGED_RUN_REQUESTS.access * p('secretManagerAccessOperations')) / 1e4,
    },
    { line: 'job executions (Cloud Run jobs)', billedTo: 'platform project', ...jobLine },
    {
      line: 'adapter function',
      billedTo: 'platform project',
      how: `${count(events)} events a month, ${billed(inputs.upToDateEventSeconds)} s each; a launch ${billed(launchSeconds)} s`,
      perCluster: events * (upToDate + request) + executions * launchExtra,
    },
    {
      line: 'Cloud Tasks (launch queue)',
      billedTo: 'platform project',
      how: `${round(taskOperations, 1)} operations a month (CreateTask and its dispatch an execution)`,
      perCluster: (taskOperations / 1e6) * p('cloudTasksOperations'),
    },
    {
      line: 'reporter function',
      billedTo: 'platform project',
      how: `${REPORTS_PER_EXECUTION} messages an execution, ${a('reporterSeconds')} s each`,
      perCluster: reports * (fn(a('reporterSeconds'), 1, tf.adapterMemoryGib) + request),
    },
    {
      line: 'Pub/Sub (events and results)',
      billedTo: 'platform project',
      how: 'publish and push, 1,000 bytes each',
      perCluster: ((events + reports) * 2 * a('pubsubRequestBytes') * p('pubsubThroughput')) / TIB,
    },
    {
      line: 'Cloud Logging',
      billedTo: 'platform project',
      how: `${round(logBytes / 1024 / 1024, 2)} MiB a month`,
      perCluster: (logBytes / GIB) * p('loggingIngestion'),
    },
    {
      line: 'Cloud Trace',
      billedTo: 'platform project',
      how: `${count(spans * tf.traceSampleRatio)} spans a month (sampler ratio ${tf.traceSampleRatio})`,
      perCluster: ((spans * tf.traceSampleRatio) / 1e6) * p('traceSpans'),
    },
    {
      line: 'alert conditions (fixed)',
      billedTo: 'platform project',
      how: `${tf.alertConditions} conditions`,
      perCluster: 0,
      fixed: tf.alertConditions * p('alertCondition'),
    },
  ];
}

/** Dollars per 1,000 clusters and month at fleet size `clusters`: variable lines plus the fixed share. */
const perThousand = (line, clusters) =>
  1000 * line.perCluster + ((line.fixed ?? 0) * 1000) / clusters;
const total = (lines, clusters) => lines.reduce((sum, l) => sum + perThousand(l, clusters), 0);

/**
 * The original design (the seeds): a Kubernetes Job for every Sentinel event and a new version on
 * every run, none destroyed. Its container seconds are priced as ours; it created its Jobs itself,
 * with no queue and no wait. Versions pile up: in a
 * cluster's month `month` the average active count is the runs of the months before plus half of
 * this one's.
 */
function originalDesign(inputs, prices, tf, month = 1) {
  const runsPerMonth = inputs.eventsPerClusterPerDay * DAYS_PER_MONTH;
  return monthlyLines(inputs, prices, tf, {
    executionsPerClusterPerDay: inputs.eventsPerClusterPerDay,
    versionsPerCluster: runsPerMonth * (month - 0.5),
    // Creating the Job is billed like an up-to-date event; no queue.
    launchEventSeconds: inputs.upToDateEventSeconds,
    taskOperationsPerExecution: 0,
  });
}

const count = (n) => Math.round(n).toLocaleString('en-US');

function round(n, digits) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function costModel(root, reference) {
  const prices = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'prices.json'), 'utf8'));
  const inputs = measuredInputs(reference);
  const tf = terraformDefaults(root);
  const batch = batchedResync(reference);
  return {
    prices,
    inputs,
    terraform: tf,
    batchedResync: batch,
    lines: monthlyLines(inputs, prices, tf, { batchedResync: batch }),
    /** Today's daily resync, one execution per cluster: what the batched one replaces. */
    perClusterResync: monthlyLines(inputs, prices, tf),
    original: originalDesign(inputs, prices, tf, 1),
    originalMonth12: originalDesign(inputs, prices, tf, 12),
  };
}

module.exports = {
  ASSUMPTIONS,
  batchedResync,
  DAYS_PER_MONTH,
  DEFAULT_SECRET_VERSION_RETENTION,
  REPORTER_REQUESTS,
  REPORTS_PER_EXECUTION,
  SIZES,
  TASK_OPERATIONS_PER_EXECUTION,
  UNCHANGED_RUN_REQUESTS,
  costModel,
  monthlyLines,
  originalDesign,
  measuredInputs,
  perThousand,
  terraformDefaults,
  total,
};
