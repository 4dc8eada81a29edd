// The trace fields must land at the TOP level of each stdout JSON line: that is where Cloud
// Logging's agent lifts `logging.googleapis.com/trace`, `.../spanId` and `.../trace_sampled` into
// the LogEntry's trace, spanId and traceSampled (anything deeper stays in jsonPayload).
import { context } from '@opentelemetry/api';
import {
  LOGGING_SAMPLED_KEY,
  LOGGING_SPAN_KEY,
  LOGGING_TRACE_KEY,
} from '@google-cloud/logging-winston';
import { createLogger, type LogFormat } from '../../../shared/logging/logger';
import { loadTracingConfig } from '../../../shared/tracing/config';
import { withSpan } from '../../../shared/tracing/spans';
import { startTracing } from '../../../shared/tracing/start';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';

// logging-winston looks for a metadata server to describe the resource; none here.
process.env.METADATA_SERVER_DETECTION ??= 'none';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

/** Captures what the logger writes to a stream while `fn` runs, one entry per line. */
async function captured(stream: NodeJS.WriteStream, fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stream.write;
  try {
    await fn();
  } finally {
    stream.write = write;
  }
  return lines;
}

async function logInsideAndOutside(format: LogFormat): Promise<void> {
  const logger = createLogger({
    component: 'trace-test',
    level: 'info',
    format,
    projectId: 'demo-project',
  });
  logger.info('outside any span');
  await context.with(contextFromTraceparent(`00-${TRACE}-${SPAN}-01`), () =>
    withSpan('test.work', {}, async () => {
      logger.child({ cluster_id: 'c1' }).info('inside a span', { attempt: 1 });
    }),
  );
  await logger.close();
}

describe('log lines inside a span', () => {
  beforeAll(async () => {
    await startTracing(loadTracingConfig({}, 'test'));
  });

  it('carry the three Cloud Logging trace fields at the top level of the stdout JSON', async () => {
    expect([LOGGING_TRACE_KEY, LOGGING_SPAN_KEY, LOGGING_SAMPLED_KEY]).toEqual([
      'logging.googleapis.com/trace',
      'logging.googleapis.com/spanId',
      'logging.googleapis.com/trace_sampled',
    ]);
    const lines = await captured(process.stdout, () => logInsideAndOutside('json'));
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // logging-winston adds a diagnostic entry of its own (no message) first.
    const byMessage = (message: string) => entries.find((entry) => entry.message === message);
    const outside = byMessage('outside any span');
    const inside = byMessage('inside a span');
    expect(outside).toBeDefined();
    expect(outside).not.toHaveProperty([LOGGING_TRACE_KEY]);
    expect(inside).toMatchObject({
      [LOGGING_TRACE_KEY]: `projects/demo-project/traces/${TRACE}`,
      // Export is off: the no-op span keeps the remote parent's ids.
      [LOGGING_SPAN_KEY]: SPAN,
      [LOGGING_SAMPLED_KEY]: true,
      message: 'inside a span',
    });
    const metadata = inside?.metadata as Record<string, unknown>;
    expect(metadata).toMatchObject({ cluster_id: 'c1', attempt: 1 });
    expect(Object.keys(metadata).filter((key) => key.startsWith('logging.googleapis.com'))).toEqual(
      [],
    );
  });

  it('show trace=<id> in text format', async () => {
    const lines = await captured(process.stderr, () => logInsideAndOutside('text'));
    expect(lines.find((line) => line.includes('outside any span'))).not.toContain('trace=');
    expect(lines.find((line) => line.includes('inside a span'))).toContain(`trace=${TRACE}`);
  });
});
