#!/usr/bin/env node
// The documentation quotes bench figures only from bench/reference.json, the committed reference
// run: every region between `<!-- bench:NAME -->` and `<!-- /bench -->` in README.md and docs/ is
// rendered here from it, so a figure cannot drift from the run it came from.
//
//   node scripts/render-bench-figures.cjs                 rewrite the regions (npm run docs:figures)
//   node scripts/render-bench-figures.cjs --check         exit 1 naming every page that differs
//   node scripts/render-bench-figures.cjs --merge FILE    copy FILE's sections (a bench run's
//                                                        results, e.g. bench/results/latest.json)
//                                                        into bench/reference.json, then rewrite
//
// --root DIR works on another copy of the repository (the tests use one).
const fs = require('node:fs');
const path = require('node:path');
const prettier = require('prettier');
const { capacityTable, costTable } = require('./cost-tables.cjs');

const SCRIPT = 'node scripts/render-bench-figures.cjs';
const REGION = /<!-- bench:([a-z0-9-]+) -->([\s\S]*?)<!-- \/bench -->/g;
/** The sections of a bench run the reference keeps (the keys of bench/results/latest.json). */
const SECTIONS = [
  'floor',
  'bundles',
  'job',
  'adapter',
  'coldStart',
  'endToEnd',
  'timingClaims',
  'fleetBurst',
  'fleetDays',
  'telemetryVolume',
  'rotation',
];

// ---- formatting -------------------------------------------------------------------------------

const thousands = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
/** A figure, a [min, max] range of alternating runs, or a dash when the run did not measure it. */
function figure(value) {
  if (value === undefined || value === null) return '—';
  if (Array.isArray(value)) return `${thousands(value[0])}–${thousands(value[1])}`;
  return typeof value === 'number' ? thousands(value) : String(value);
}
function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

// ---- the reference ------------------------------------------------------------------------------

function readReference(root) {
  return JSON.parse(fs.readFileSync(path.join(root, 'bench', 'reference.json'), 'utf8'));
}
function sectionOf(reference, key) {
  const section = reference.sections[key];
  if (!section) throw new Error(`bench/reference.json has no "${key}" section`);
  return section;
}
function jobRun(reference, kind) {
  const run = sectionOf(reference, 'job').figures.find((j) => j.kind === kind);
  if (!run) throw new Error(`bench/reference.json has no job run "${kind}"`);
  return run;
}
const JOB_KINDS = ['first', 'unchanged', 'changed'];
const machineText = (m) =>
  `${m.cpus} × ${m.cpuModel} vCPUs, ${m.memoryGb} GiB, Node ${m.node.replace(/^v/, '')} (${m.platform})`;

// ---- the regions --------------------------------------------------------------------------------

/** Each region's renderer: inline ones stand inside a sentence, the others are blocks. */
const RENDERERS = {
  'job-sm-calls': {
    inline: true,
    render: (ref) => JOB_KINDS.map((k) => jobRun(ref, k).secretManagerCalls).join(' / '),
  },
  'job-k8s-calls': {
    inline: true,
    render: (ref) => JOB_KINDS.map((k) => jobRun(ref, k).kubernetesCalls).join(' / '),
  },
  'reference-run': {
    render: (ref) => {
      const runs = new Map();
      for (const [key, section] of Object.entries(ref.sections)) {
        const when = `${section.measuredAt.slice(0, 10)} on ${machineText(section.machine)}`;
        runs.set(when, [...(runs.get(when) ?? []), key]);
      }
      return [...runs]
        .map(([when, keys]) => `Reference run (${keys.join(', ')}): ${when}.`)
        .join('\n');
    },
  },
  'job-table': {
    render: (ref) =>
      table(
        [
          'run',
          'wall p50 ms',
          'wall p90 ms',
          'peak RSS MB',
          'Secret Manager calls',
          'Kubernetes calls',
        ],
        sectionOf(ref, 'job').figures.map((j) => [
          j.kind,
          figure(j.wallMsP50),
          figure(j.wallMsP90),
          figure(j.maxRssMb),
          figure(j.secretManagerCalls),
          figure(j.kubernetesCalls),
        ]),
      ),
  },
  'adapter-table': {
    render: (ref) =>
      table(
        [
          'scenario',
          'concurrency',
          'events/s',
          'p50 ms',
          'p99 ms',
          'HyperFleet calls/event',
          'Cloud Tasks calls/event',
          'Cloud Run calls/event',
        ],
        sectionOf(ref, 'adapter').figures.map((a) => [
          a.scenario,
          figure(a.concurrency),
          figure(a.eventsPerSecond),
          figure(a.p50Ms),
          figure(a.p99Ms),
          figure(a.hyperfleetCallsPerEvent),
          figure(a.cloudTasksCallsPerEvent),
          figure(a.cloudRunCallsPerEvent),
        ]),
      ),
  },
  'cold-start-table': {
    render: (ref) =>
      table(
        ['function', 'module load p50 ms', 'first event p50 ms', 'peak RSS MB'],
        sectionOf(ref, 'coldStart').figures.map((c) => [
          c.module,
          figure(c.loadMsP50),
          figure(c.firstEventMsP50),
          figure(c.peakRssMb),
        ]),
      ),
  },
  'timing-table': {
    render: (ref) =>
      table(
        ['claim', 'p50 ms', 'bound ms'],
        sectionOf(ref, 'timingClaims').figures.map((t) => [
          t.claim,
          figure(t.p50Ms),
          figure(t.boundMs),
        ]),
      ),
  },
  'fleet-burst-table': {
    render: (ref) =>
      table(
        [
          'adapter instances',
          'clusters',
          'queue rate /min',
          'RunJob quota /min',
          'converged',
          'minutes to converge',
          'executions',
          'busiest minute (RunJob)',
          'RESOURCE_EXHAUSTED',
          'queue dispatches',
          'deliveries',
        ],
        sectionOf(ref, 'fleetBurst').figures.map((b) => [
          figure(b.instances),
          figure(b.clusters),
          figure(b.queueRatePerMinute),
          figure(b.quotaPerMinute),
          figure(b.converged),
          figure(b.minutesToConverge),
          figure(b.executions),
          figure(b.busiestMinute),
          figure(b.runJobRefused),
          figure(b.dispatches),
          figure(b.deliveries),
        ]),
      ),
  },
  'fleet-days-table': {
    render: (ref) => {
      const d = sectionOf(ref, 'fleetDays').figures;
      return table(
        [
          'clusters',
          'simulated days',
          'RESYNC_INTERVAL',
          'converged',
          'executions',
          'executions/cluster/day',
          'after day 1',
          'events/cluster/day',
          'busiest minute (RunJob)',
        ],
        [
          [
            figure(d.clusters),
            figure(d.days),
            figure(d.resyncInterval),
            figure(d.converged),
            figure(d.executions),
            figure(d.executionsPerClusterPerDay),
            figure(d.steadyExecutionsPerClusterPerDay),
            figure(d.eventsPerClusterPerDay),
            figure(d.busiestMinute),
          ],
        ],
      );
    },
  },
  'rotation-table': {
    render: (ref) =>
      table(
        [
          'clusters',
          'management clusters',
          'tasks (parallelism)',
          'minutes to the last Secret, direct',
          'target',
          'the same, local calibration',
          'through Connect Gateway',
          'Connect Gateway busiest 60 s',
          'fleets to meet the target',
          'per-cluster design',
        ],
        sectionOf(ref, 'rotation').figures.map((r) => [
          figure(r.clusters),
          figure(r.managementClusters),
          `${figure(r.tasks)} (${figure(r.parallelism)})`,
          `**${figure(r.minutesToAllSecrets)}**`,
          r.targetMinutes === null ? '—' : `≤ ${figure(r.targetMinutes)}`,
          figure(r.localCalibration.minutesToAllSecrets),
          `${figure(r.connectGateway.minutesToAllSecrets)} (${figure(r.connectGateway.minutesSharedByRunningTasks)} shared by running tasks)`,
          figure(r.connectGateway.busiestMinute),
          figure(r.connectGateway.fleetsForTarget),
          figure(r.perClusterDesignMinutes),
        ]),
      ),
  },
  'rotation-resync-table': {
    render: (ref) =>
      table(
        [
          'clusters',
          'executions a day, batched',
          'per-cluster design',
          'tasks',
          'minutes, direct',
          'minutes through Connect Gateway',
          'longest task through Connect Gateway, minutes',
          'billed task-seconds per cluster',
        ],
        sectionOf(ref, 'rotation').figures.map((r) => [
          figure(r.clusters),
          `**${figure(r.resync.executionsPerDay)}**`,
          figure(r.resync.perClusterDesignExecutionsPerDay),
          figure(r.resync.tasks),
          figure(r.resync.minutes),
          figure(r.resync.minutesConnectGateway),
          figure(r.resync.longestTaskMinutesConnectGateway),
          figure(r.resync.taskSecondsPerCluster),
        ]),
      ),
  },
  'rotation-parameters': {
    render: (ref) => {
      const [first] = sectionOf(ref, 'rotation').figures;
      const p = first.parameters;
      const l = p.latencies;
      const shape = (s) =>
        `${s.secretManager} Secret Manager, ${s.kubernetes} Kubernetes, ${s.hyperfleet} HyperFleet`;
      return table(
        ['parameter', 'value'],
        [
          ['Secret Manager call (typical, not published)', `${l.secretManagerMs} ms`],
          ['GKE control plane call, direct (typical)', `${l.kubernetesMs} ms`],
          ['Connect Gateway adds (typical)', `${l.connectGatewayExtraMs} ms`],
          ['HyperFleet API call; a list page', `${l.hyperfleetMs} ms; ${l.listPageMs} ms`],
          [
            "a rotation's apply (job bench: unchanged run's Secret Manager calls, changed run's Kubernetes and HyperFleet calls), plus the task's status read",
            shape(p.rotationShape),
          ],
          ["a resync's apply (job bench: an unchanged run)", shape(p.resyncShape)],
          [
            'clusters per task (`BATCH_CLUSTERS_PER_TASK`); page size',
            `${figure(p.clustersPerTask)}; ${figure(p.pageSize)}`,
          ],
          ['tasks per execution, at most (Cloud Run, fixed)', figure(p.maxTasks)],
          [
            "parallelism (the job's `parallelism`); clusters at once per task",
            `${figure(p.parallelism)}; ${figure(p.taskConcurrency)}`,
          ],
          [
            "task container start (the cost model's job start, taken high)",
            `${figure(p.taskStartMs / 1000)} s`,
          ],
          [
            'AddSecretVersion to the adapter (notification and push, taken high)',
            `${figure(p.notificationMs / 1000)} s`,
          ],
          ['the dispatch and its RunJob (taken high)', `${figure(p.dispatchMs / 1000)} s`],
          [
            'RunJob quota; launch queue rate (per-cluster design)',
            `${figure(p.runJobPerMinute)}/min; ${figure(p.launchQueuePerMinute)}/min`,
          ],
          [
            'Connect Gateway quota per fleet; share paced to',
            `${figure(p.connectGatewayPerMinute)}/min; ${figure(100 * p.connectGatewayHeadroom)} %, split over ${p.connectGatewayShare === 'tasks' ? 'all tasks' : 'the tasks running at once'}`,
          ],
          ['clusters on the platform default', `${figure(100 * p.defaultShare)} %`],
        ],
      );
    },
  },
  capacity: { render: (ref, root) => capacityTable(root, ref) },
  cost: { render: (ref, root) => costTable(root, ref) },
};

// ---- pages ----------------------------------------------------------------------------------------

function pages(root) {
  const docs = fs
    .readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file));
  return ['README.md', ...docs.sort()];
}

/** The page with every region rendered, formatted as `prettier --check` wants it. */
async function rendered(root, file, reference) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (!text.includes('<!-- bench:')) return text;
  const replaced = text.replace(REGION, (_, name) => {
    const renderer = RENDERERS[name];
    if (!renderer) throw new Error(`${file}: unknown bench region "${name}"`);
    const body = renderer.render(reference, root);
    return `<!-- bench:${name} -->${renderer.inline ? body : `\n\n${body}\n\n`}<!-- /bench -->`;
  });
  // The repository's settings wherever the copy is, so that a test's copy renders as the real one.
  const options = await prettier.resolveConfig(path.join(__dirname, '..', 'README.md'));
  return prettier.format(replaced, { ...options, parser: 'markdown' });
}

/** Copies a bench run's sections into the reference, each with the run's date and machine. */
async function merge(root, resultsFile) {
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const reference = readReference(root);
  const merged = SECTIONS.filter((key) => results[key] !== undefined);
  if (merged.length === 0) throw new Error(`${resultsFile} holds none of ${SECTIONS.join(', ')}`);
  for (const key of merged)
    reference.sections[key] = {
      measuredAt: results.measuredAt,
      machine: results.machine,
      figures: results[key],
    };
  // Formatted as `prettier --check` (run by npm run lint) wants it.
  const file = path.join(root, 'bench', 'reference.json');
  const options = await prettier.resolveConfig(path.join(__dirname, '..', 'README.md'));
  fs.writeFileSync(
    file,
    await prettier.format(JSON.stringify(reference), { ...options, parser: 'json' }),
  );
  console.log(`bench/reference.json: ${merged.join(', ')} from ${resultsFile}`);
}

function argument(args, flag) {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
}

async function main(args) {
  const root = path.resolve(argument(args, '--root') ?? path.join(__dirname, '..'));
  const mergeFile = argument(args, '--merge');
  if (mergeFile) await merge(root, path.resolve(mergeFile));
  const reference = readReference(root);
  const stale = [];
  for (const file of pages(root)) {
    const before = fs.readFileSync(path.join(root, file), 'utf8');
    const after = await rendered(root, file, reference);
    if (after === before) continue;
    if (args.includes('--check')) stale.push(file);
    else fs.writeFileSync(path.join(root, file), after);
  }
  if (stale.length > 0) {
    console.error(
      `Bench figures differ from bench/reference.json in: ${stale.join(', ')}. Run ${SCRIPT} (npm run docs:figures).`,
    );
    process.exitCode = 1;
  }
}

if (require.main === module)
  main(process.argv.slice(2)).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
