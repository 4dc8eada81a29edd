import path from 'node:path';
import { RESULT_LINE_KEY } from '../../../shared/job-result';
import type { TailedLine } from './log-tailer';

/** One step of the story, as people (or `--json`) see it. */
export interface TimelineEvent {
  readonly component:
    'sentinel' | 'adapter' | 'job' | 'reporter' | 'hyperfleet' | 'placement' | 'hypershift';
  readonly text: string;
  readonly clusterId?: string;
  /** Which adapter instance logged it (the local stack runs several, see layout.ts). */
  readonly instance?: number;
}

type Fields = Record<string, unknown>;
/** `adapter-2.log`: the log file of adapter instance 2. */
const ADAPTER_LOG = /^adapter-(\d+)$/;
const str = (value: unknown) =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);

/** Turns the components' JSON log lines into timeline events; most lines are not events. */
export function timelineEvents(line: TailedLine): TimelineEvent[] {
  const file = path.basename(line.source, '.log');
  const adapterInstance = ADAPTER_LOG.exec(file)?.[1];
  const component = line.source.includes(`${path.sep}jobs${path.sep}`)
    ? 'job'
    : adapterInstance
      ? 'adapter'
      : file;
  const message = str(line.json.message);
  const fields = (line.json.metadata as Fields | undefined) ?? {};
  const clusterId = str(fields.cluster_id) || undefined;
  const event = (c: TimelineEvent['component'], text: string, id = clusterId): TimelineEvent[] => [
    {
      component: c,
      text,
      ...(id ? { clusterId: id } : {}),
      ...(adapterInstance ? { instance: Number(adapterInstance) } : {}),
    },
  ];
  const decision = str(fields.decision);

  if (component === 'sentinel' && decision === 'published')
    return event(
      'sentinel',
      `reconcile event published for generation ${str(fields.generation)} (${str(fields.reason)})`,
    );
  if (component === 'adapter') {
    const task = str(fields.task).split('/').pop();
    if (decision === 'launch-queued') return event('adapter', `launch queued: ${task}`);
    if (decision === 'launch-already-queued')
      return event('adapter', `launch already queued (a duplicate decision): ${task}`);
    if (decision.startsWith('launch-')) return event('adapter', `preconditions met: ${message}`);
    if (decision === 'report-not-met') return event('adapter', message);
    if (decision.startsWith('report-')) return event('adapter', `reporting: ${message}`);
    if (decision === 'malformed' || decision === 'failed' || decision === 'retry')
      return event('adapter', message);
    if (decision === 'in-flight-refused') return event('adapter', message);
    return [];
  }
  if (component === 'job') {
    const result = line.json[RESULT_LINE_KEY] as Fields | undefined;
    if (result)
      return event(
        'job',
        `execution ${str(result.execution)} ${str(result.outcome)}: ${str(result.message)}`,
        str(result.cluster_id),
      );
    const operation = str(fields.operation);
    // A failed attempt (retried) or a dry run logs this operation without a version: say what
    // happened instead of an empty "version added", which read as one more version.
    if (operation === 'add-secret-version')
      return str(fields.version)
        ? event('job', `Secret Manager version added: ${str(fields.version)}`)
        : fields.retry !== undefined
          ? event(
              'job',
              `Secret Manager write failed, retry ${str(fields.retry)} in ${str(fields.delay_ms)} ms`,
            )
          : event('job', message);
    if (operation === 'compare-version')
      return event('job', `Secret Manager version unchanged: ${str(fields.version)}`);
    if (
      fields.phase === 'kubernetes' &&
      ['create-secret', 'update-secret', 'compare-secret', 'delete-secret'].includes(operation)
    )
      return event('job', `${message}${secretLocation(fields)}`);
    if (operation === 'delete-secret' || operation === 'disable-versions')
      return event('job', message);
    if (fields.phase === 'failed') return event('job', `failed: ${message}`);
    return [];
  }
  if (component === 'hypershift') return hyperShiftEvents(fields, event);
  if (component === 'reporter' && decision.startsWith('report-')) {
    const source =
      { 'job-result': 'job result', 'job-started': 'job start' }[str(fields.source)] ??
      'execution-finished event';
    return fields.status_write === 'discarded'
      ? event(
          'reporter',
          `${source}: report discarded by the API (a newer, more specific report is stored)`,
        )
      : event(
          'reporter',
          `${source}: status reported, ${str(fields.decision).replace('report-', '')} (${str(fields.reason)})`,
        );
  }
  return [];
}

/** The simulated HyperShift adapter's steps: HostedCluster writes and its status reports. */
function hyperShiftEvents(
  fields: Fields,
  event: (c: TimelineEvent['component'], text: string) => TimelineEvent[],
): TimelineEvent[] {
  const where = `${str(fields.management_cluster)} ${str(fields.namespace)}/${str(fields.hosted_cluster)}`;
  switch (str(fields.event)) {
    case 'hostedcluster-created':
      return event(
        'hypershift',
        `HostedCluster created: ${where} (spec.pullSecret.name ${str(fields.pull_secret_name)})`,
      );
    case 'hostedcluster-updated':
      return event(
        'hypershift',
        `HostedCluster updated: ${where} (spec.pullSecret.name ${str(fields.pull_secret_name)})`,
      );
    case 'hostedcluster-deleted':
      return event('hypershift', `HostedCluster deleted: ${where}`);
    case 'reported':
      return event(
        'hypershift',
        `status reported at generation ${str(fields.generation)}: Available=${str(fields.available)} (${str(fields.reason)})${fields.finalized ? `, Finalized=${str(fields.finalized)}` : ''}${fields.available === 'True' || fields.finalized ? '' : `: ${str(fields.detail)}`}`,
      );
    default:
      return [];
  }
}

/** `: namespace/name` when the line says where; deletions log no location, so nothing then. */
function secretLocation(fields: Fields): string {
  const where = [str(fields.namespace), str(fields.k8s_secret)].filter(Boolean).join('/');
  if (!where) return '';
  // Which management cluster the Secret went to (absent from a single-cluster job's lines).
  return `: ${fields.management_cluster ? `${str(fields.management_cluster)} ` : ''}${where}`;
}

/** Prints events for people (relative time, component) or as JSON lines. */
export function formatEvent(
  event: TimelineEvent,
  elapsedMs: number,
  json: boolean,
  names: ReadonlyMap<string, string>,
): string {
  const cluster = event.clusterId
    ? (names.get(event.clusterId) ?? event.clusterId.slice(0, 8))
    : '';
  if (json)
    return JSON.stringify({
      time: new Date().toISOString(),
      elapsed_ms: elapsedMs,
      component: event.component,
      ...(event.instance ? { instance: event.instance } : {}),
      cluster: cluster || undefined,
      cluster_id: event.clusterId,
      event: event.text,
    });
  const who = event.instance ? `${event.component}#${event.instance}` : event.component;
  return `+${(elapsedMs / 1000).toFixed(1).padStart(6)}s  ${who.padEnd(10)} ${cluster ? `[${cluster}] ` : ''}${event.text}`;
}
