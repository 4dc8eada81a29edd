import type { ConditionCell, FleetRow } from './cluster-row';
import type { FleetReport } from './fleet-report';

const HEADER = [
  'ID',
  'NAME',
  'GEN',
  'STATE',
  'AVAILABLE',
  'HEALTH',
  'SOURCE',
  'DEFAULT',
  'SHA256',
  'PLACE',
  'OBSERVED',
  'LAST REPORT',
  'WAITING',
];

const condition = (c: ConditionCell | undefined): string =>
  c ? `${c.status}${c.reason ? ` ${c.reason}` : ''}` : '-';

/** 95 s -> "1m35s", 4000 s -> "1h06m". */
export function shortDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600)
    return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

function cells(row: FleetRow): string[] {
  const flags = [
    row.deleting ? 'deleting' : '',
    row.permanent_failure ? 'PERMANENT' : '',
    row.not_converged ? 'LATE' : '',
  ].filter(Boolean);
  return [
    row.id,
    row.name,
    String(row.generation),
    [row.state, ...flags].join(' '),
    condition(row.available),
    condition(row.health),
    row.pull_secret_source ?? '-',
    row.default_version ?? '-',
    row.pull_secret_sha256_prefix ?? '-',
    row.management_cluster ? `${row.management_cluster}/${row.namespace ?? '-'}` : '-',
    row.observed_generation === undefined ? '-' : String(row.observed_generation),
    row.last_report_time ?? '-',
    row.waiting_seconds === undefined ? '-' : shortDuration(row.waiting_seconds),
  ];
}

/** The report as a terminal table and a summary, one string per line. */
export function renderReport(report: FleetReport): string[] {
  const rows = [HEADER, ...report.clusters.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const { summary } = report;
  const counts = Object.entries(summary.by_state)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${state} ${n}`);
  const list = (ids: readonly string[]) => (ids.length > 0 ? ids.join(', ') : 'none');
  lines.push(
    '',
    `${summary.total} cluster(s): ${counts.length > 0 ? counts.join(', ') : 'none'}`,
    `not converged after ${shortDuration(report.not_converged_after_seconds)}: ${list(summary.not_converged)}`,
    `stuck in PreconditionsNotMet: ${list(summary.stuck_preconditions)}`,
    `failing permanently: ${list(summary.permanent_failures)}`,
  );
  const versions = Object.entries(summary.by_default_version);
  if (versions.length > 0)
    lines.push(
      `on the platform default: ${versions.map(([version, n]) => `version ${version}: ${n}`).join(', ')}`,
    );
  if (report.launch_queue)
    lines.push(`launch queue ${report.launch_queue.name}: ${report.launch_queue.state}`);
  if (report.paused_management_clusters?.length)
    lines.push(`paused management clusters: ${report.paused_management_clusters.join(', ')}`);
  return lines;
}
