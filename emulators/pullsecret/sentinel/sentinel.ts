import {
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { uuid7 } from '../../common/uuid7';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { shouldPublish, type SentinelIntervals } from './rules';

/** A W3C `traceparent` for a span context (version 00). */
export const traceparentOf = (span: SpanContext) =>
  `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;

/**
 * Sentinel's structured CloudEvent for a cluster (the whole event goes into the Pub/Sub message).
 * With tracing on, the publish span's context travels as the CloudEvents distributed tracing
 * extension (`traceparent`, `tracestate`), as real Sentinel sends it.
 */
export function reconcileEvent(
  cluster: Pick<Cluster, 'id' | 'generation' | 'href'>,
  span?: SpanContext,
): Record<string, unknown> {
  const traced = span && isSpanContextValid(span);
  const tracestate = traced ? span.traceState?.serialize() : undefined;
  return {
    specversion: '1.0',
    type: 'com.redhat.hyperfleet.cluster.reconcile',
    source: 'hyperfleet-sentinel',
    id: uuid7(),
    datacontenttype: 'application/json',
    data: {
      id: cluster.id,
      kind: 'Cluster',
      href: cluster.href ?? `/api/hyperfleet/v1/clusters/${cluster.id}`,
      generation: cluster.generation,
    },
    ...(traced ? { traceparent: traceparentOf(span) } : {}),
    ...(tracestate ? { tracestate } : {}),
  };
}

/** Where Sentinel reads the clusters: the HyperFleet API, or (in the fleet simulation) its store. */
export type ClusterLister = Pick<HyperFleetClient, 'listAllClusters'>;

/** Where events go: the topic, with `_watermill_message_uuid` as the only attribute, as Sentinel does. */
export type EventSink = (event: Record<string, unknown>) => Promise<void>;

/** A small Sentinel: polls the HyperFleet API and publishes reconcile events by the real rules. */
export class Sentinel {
  private readonly lastPublished = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly api: ClusterLister,
    private readonly sink: EventSink,
    private readonly intervals: SentinelIntervals,
    private readonly onPublish: (cluster: Cluster, reason: string) => void = () => undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Records `sentinel.publish` (default: the global tracer, a no-op unless one is registered). */
    private readonly tracer: Tracer = trace.getTracer('hyperfleet-sentinel'),
  ) {}

  start(pollMs: number): void {
    const loop = async () => {
      this.running = this.tick().then(() => undefined, this.onError);

      await this.running;
      this.timer = setTimeout(() => void loop(), pollMs);
    };
    void loop();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One poll: publishes what the rules ask for; forgets clusters that are gone. */
  async tick(now = Date.now()): Promise<number> {
    // Polls are not traced: only a publish starts a trace (the reconcile's), or every poll of
    // every second would be a trace of its own.
    const clusters = await context.with(suppressTracing(context.active()), () =>
      this.api.listAllClusters(),
    );
    const seen = new Set(clusters.map((c) => c.id));
    for (const id of this.lastPublished.keys()) if (!seen.has(id)) this.lastPublished.delete(id);
    let published = 0;
    for (const cluster of clusters) {
      const decision = shouldPublish(
        cluster,
        this.lastPublished.get(cluster.id),
        now,
        this.intervals,
      );
      if (!decision.publish) continue;
      await this.publish(cluster);
      this.lastPublished.set(cluster.id, now);
      this.onPublish(cluster, decision.reason);
      published++;
    }
    return published;
  }

  /** One event, inside its PRODUCER span `sentinel.publish` (the event carries its context). */
  private async publish(cluster: Cluster): Promise<void> {
    const span = this.tracer.startSpan('sentinel.publish', {
      kind: SpanKind.PRODUCER,
      attributes: {
        'hyperfleet.cluster.id': cluster.id,
        'hyperfleet.cluster.generation': cluster.generation,
      },
    });
    try {
      await this.sink(reconcileEvent(cluster, span.spanContext()));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      throw error;
    } finally {
      span.end();
    }
  }
}
