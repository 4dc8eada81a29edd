// The exporter's own warnings, from the real SDK and OTLP exporter sending to a real socket: they
// belong to no trace (a batch timer runs in whatever event's context started it), show the
// endpoint without credentials, and a hung endpoint stops costing every event the flush bound.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LogFields, Logger } from '../../../shared/logging/logger';
import { loadTracingConfig } from '../../../shared/tracing/config';
import { startExporting } from '../../../shared/tracing/sdk';
import { withSpan } from '../../../shared/tracing/spans';
import { contextFromTraceparent, currentSpanContext } from '../../../shared/tracing/traceparent';
import { OtlpTestReceiver } from '../../helpers/otlp-test-receiver';

interface Line {
  level: string;
  message: string;
  fields?: LogFields;
  /** The trace the real logger would stamp on the line (the active span's). */
  traceId?: string;
}

/** A Logger port that records each line with the trace active when it was written. */
function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      const traceId = currentSpanContext()?.traceId;
      lines.push({
        level,
        message,
        ...(fields ? { fields } : {}),
        ...(traceId ? { traceId } : {}),
      });
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

const EVENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
/** One event's work (a span, ended) and then `fn` (the flush) in that event's context. */
const inEvent = <T>(fn: () => Promise<T>) =>
  context.with(contextFromTraceparent(`00-${EVENT_TRACE}-00f067aa0ba902b7-01`), async () => {
    await withSpan('event.work', {}, async () => undefined);
    return fn();
  });

describe('exporter warnings', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterEach(() => trace.disable());

  it('a failed export is warned outside any trace, naming the endpoint without userinfo or query', async () => {
    const receiver = await OtlpTestReceiver.start();
    receiver.answerStatus = 400;
    const lines: Line[] = [];
    const endpoint = new URL(`${receiver.endpoint.replace(/\/+$/, '')}/v1/traces`);
    endpoint.username = 'collector-user';
    endpoint.password = 'userinfo-secret';
    endpoint.search = '?api-key=query-secret';
    const tracing = startExporting(
      loadTracingConfig(
        { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint.href },
        'test',
      ),
      { logger: recordingLogger(lines) },
    );
    try {
      await inEvent(async () => {
        await tracing.flush();
      });
    } finally {
      await tracing.shutdown();
      await receiver.stop();
    }
    const warning = lines.find((l) => l.message.startsWith('Exporting trace spans failed'));
    expect(warning).toBeDefined();
    expect(warning!.traceId).toBeUndefined();
    expect(warning!.fields?.endpoint).toBe(`${endpoint.origin}/v1/traces`);
    expect(JSON.stringify(lines)).not.toMatch(/userinfo-secret|query-secret|collector-user/);
  });

  it('a hung endpoint: one warning per run of timeouts; after 3 in a row flushes are not waited for', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const lines: Line[] = [];
    const FLUSH_MS = 300;
    const tracing = startExporting(
      loadTracingConfig(
        {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
          OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
        },
        'test',
      ),
      { logger: recordingLogger(lines) },
      FLUSH_MS,
    );
    /**
     * One event's flush, timed, and whether it was still pending when the event loop next turned:
     * a flush that is not waited for resolves at once (no timer, no socket), before any turn.
     */
    const flushInEvent = () =>
      inEvent(async () => {
        const started = Date.now();
        const nextTurn = new Promise<'waited'>((resolve) => setImmediate(() => resolve('waited')));
        const flushed = tracing.flush().then(() => 'returned at once' as const);
        const first = await Promise.race([flushed, nextTurn]);
        await flushed;
        return { first, ms: Date.now() - started };
      });
    try {
      const flushes: { first: string; ms: number }[] = [];
      for (let i = 0; i < 5; i++) flushes.push(await flushInEvent());
      // The first three wait the full bound (a lower bound: a loaded machine only adds to it).
      for (const flush of flushes.slice(0, 3)) {
        expect(flush.first).toBe('waited');
        expect(flush.ms).toBeGreaterThanOrEqual(FLUSH_MS - 20);
      }
      // From then on an event does not wait for its flush at all.
      for (const flush of flushes.slice(3)) expect(flush.first).toBe('returned at once');
      const warnings = lines.filter((l) => l.level === 'warn');
      expect(warnings.map((l) => l.message)).toEqual([
        'Trace spans not flushed in time; going on without them',
      ]);
      expect(warnings[0]!.traceId).toBeUndefined();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      trace.disable();
    }
  });
});
