import type { AttributeValue, StoredSpan } from '../../traces/stored-span';

/** The attributes a waterfall line shows, by the short name it shows them under. */
export const DETAIL_ATTRIBUTES: readonly (readonly [string, string])[] = [
  ['decision', 'pullsecret.decision'],
  ['reason', 'pullsecret.reason'],
  ['outcome', 'pullsecret.outcome'],
  ['http', 'http.response.status_code'],
  ['error', 'error.type'],
];

/** One line of a waterfall: a span in tree order, placed on the trace's time axis. */
export interface WaterfallRow {
  readonly span: StoredSpan;
  readonly depth: number;
  /** Box-drawing tree prefix (`├─ `, `│  └─ `, ...) before the span's name. */
  readonly prefix: string;
  readonly startOffsetMs: number;
  readonly durationMs: number;
  /** Start and end as fractions (0..1) of the whole trace, for bars. */
  readonly from: number;
  readonly to: number;
  /** decision, reason, outcome, http status, error type; and the parent when it was not recorded. */
  readonly details: Readonly<Record<string, string>>;
}

const nanos = (text: string) => BigInt(text);
const ms = (ns: bigint) => Number(ns) / 1e6;
const show = (value: AttributeValue | undefined) =>
  value === undefined || value === null
    ? undefined
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/**
 * A trace's spans in tree order (parents before children, siblings by start time), each placed
 * relative to the trace's first start. A span whose parent is not in the trace (a caller that
 * exports nowhere, or a known traceparent from a test) is a root, its parent named in details.
 */
export function waterfallRows(spans: readonly StoredSpan[]): WaterfallRow[] {
  if (spans.length === 0) return [];
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => {
    const d = nanos(a.startUnixNano) - nanos(b.startUnixNano);
    return d < 0n ? -1 : d > 0n ? 1 : a.name.localeCompare(b.name);
  });
  const children = new Map<string, StoredSpan[]>();
  for (const span of byStart)
    if (span.parentSpanId && ids.has(span.parentSpanId))
      children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span]);
  const roots = byStart.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const origin = nanos(byStart[0]!.startUnixNano);
  const end = spans.reduce((max, s) => {
    const e = nanos(s.endUnixNano);
    return e > max ? e : max;
  }, origin);
  const total = end - origin;

  const rows: WaterfallRow[] = [];
  const visited = new Set<string>();
  const visit = (span: StoredSpan, depth: number, prefix: string, indent: string) => {
    if (visited.has(span.spanId)) return;
    visited.add(span.spanId);
    const start = nanos(span.startUnixNano) - origin;
    const finish = nanos(span.endUnixNano) - origin;
    const duration = finish > start ? finish - start : 0n;
    const details: Record<string, string> = {};
    for (const [label, key] of DETAIL_ATTRIBUTES) {
      const value = show(span.attributes[key]);
      if (value !== undefined) details[label] = value;
    }
    if (span.parentSpanId && !ids.has(span.parentSpanId)) details.parent = span.parentSpanId;
    rows.push({
      span,
      depth,
      prefix,
      startOffsetMs: ms(start),
      durationMs: ms(duration),
      from: total > 0n ? Number(start) / Number(total) : 0,
      to: total > 0n ? Number(start + duration) / Number(total) : 0,
      details,
    });
    const kids = children.get(span.spanId) ?? [];
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      visit(kid, depth + 1, indent + (last ? '└─ ' : '├─ '), indent + (last ? '   ' : '│  '));
    });
  };
  for (const root of roots) visit(root, 0, '', '');
  // Spans in a parent cycle (corrupt ids) reach no root: still shown, never lost.
  for (const span of byStart) visit(span, 0, '', '');
  return rows;
}

/** A bar of `width` cells: the span's share of the trace's time axis. */
export function bar(from: number, to: number, width: number): string {
  const start = Math.min(width - 1, Math.floor(from * width));
  const end = Math.max(start + 1, Math.min(width, Math.ceil(to * width)));
  return `|${' '.repeat(start)}${'█'.repeat(end - start)}${' '.repeat(width - end)}|`;
}

const STATUS_SHOWN: Record<string, string> = { OK: 'ok', ERROR: 'ERROR' };

/** The waterfall as terminal lines: a heading, a column header and one line per span. */
export function renderWaterfall(
  traceId: string,
  spans: readonly StoredSpan[],
  options: { barWidth?: number } = {},
): string[] {
  const width = options.barWidth ?? 30;
  const rows = waterfallRows(spans);
  const services = [...new Set(rows.map((r) => r.span.service || '?'))];
  const totalMs = rows.reduce((max, r) => Math.max(max, r.startOffsetMs + r.durationMs), 0);
  const serviceWidth = Math.max(7, ...services.map((s) => s.length));
  const nameWidth = Math.max(4, ...rows.map((r) => r.prefix.length + r.span.name.length));
  const line = (cells: string[]) => cells.join('  ').trimEnd();
  return [
    `Trace ${traceId}: ${rows.length} span(s), ${totalMs.toFixed(1)} ms, services ${services.join(', ')}`,
    line([
      'START ms'.padStart(9),
      'DUR ms'.padStart(9),
      'WATERFALL'.padEnd(width + 2),
      'STATUS',
      'SERVICE'.padEnd(serviceWidth),
      'SPAN'.padEnd(nameWidth),
      'DETAILS',
    ]),
    ...rows.map((r) =>
      line([
        r.startOffsetMs.toFixed(1).padStart(9),
        r.durationMs.toFixed(1).padStart(9),
        bar(r.from, r.to, width),
        (STATUS_SHOWN[r.span.status.code] ?? '').padEnd(6),
        (r.span.service || '?').padEnd(serviceWidth),
        (r.prefix + r.span.name).padEnd(nameWidth),
        Object.entries(r.details)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      ]),
    ),
  ];
}
