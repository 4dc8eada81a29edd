import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { Span, SpanAttributes } from '../../../shared/tracing/spans';
import { markPhaseFailed } from './job-trace';
import { withPhaseSpan } from './open-spans';

/** Where a phase's timing goes: the result's phases (in order) and durations_ms. */
export interface PhaseRecord {
  readonly phases: JobResult['phases'];
  readonly durations: Record<string, number>;
}

export interface Phase<T> {
  /** The key in durations_ms, and the `phase` log field. */
  readonly name: string;
  /** The span's name (secretmanager.sync, kubernetes.sync); none: timed and logged only. */
  readonly span?: string;
  readonly attributes?: SpanAttributes;
  /** Listed in the result's `phases` (the writing phases are; claim and resolve are not). */
  readonly listed?: JobResult['phases'][number];
  /** A failure the phase returns rather than throws (the span is marked failed with it). */
  readonly failureOf?: (result: T) => unknown;
}

/**
 * One phase of the job: timed into durations_ms, run inside its tracked span (ended by a
 * termination signal too, open-spans.ts) when it has one, and its duration logged at debug level.
 */
export async function runPhase<T>(
  record: PhaseRecord,
  phase: Phase<T>,
  log: Logger,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  if (phase.listed) record.phases.push(phase.listed);
  try {
    if (!phase.span) return await fn(undefined);
    return await withPhaseSpan(phase.span, phase.attributes ?? {}, async (span) => {
      const result = await fn(span);
      const failure = phase.failureOf?.(result);
      if (failure) markPhaseFailed(span, failure);
      return result;
    });
  } finally {
    record.durations[phase.name] = Date.now() - started;
    log.debug(`Phase ${phase.name} ended`, {
      phase: phase.name,
      duration_ms: record.durations[phase.name],
    });
  }
}
