import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { buildStatus } from '../../../shared/status/status-builder';
import type { Logger } from '../../../shared/logging/logger';
import type { Decision } from '../decision/decision';
import type { AdapterDependencies } from './dependencies';
import { launchQuery } from './launch-or-adopt';
import { observedAt, reportStatus } from './report-status';
import { resolveExecution, resolveIntent, type Resolution } from '../decision/resolve-in-flight';

/**
 * Asks Cloud Run about an in-flight launch (off the happy path only): an intent without an
 * execution is searched with ListExecutions, a long-silent execution read with GetExecution. Returns
 * the launch id or execution to treat as lost when the caller should decide again and relaunch.
 */
export async function resolveInFlight(
  decision: Extract<Decision, { kind: 'resolve-launch' | 'check-execution' }>,
  cluster: Cluster,
  deps: AdapterDependencies,
  log: Logger,
  now: Date,
): Promise<{ lost: string } | undefined> {
  const resolution: Resolution =
    decision.kind === 'resolve-launch'
      ? resolveIntent(
          decision,
          await deps.lookup.findLaunched(
            launchQuery(
              {
                launchId: decision.launchId,
                clusterId: cluster.id,
                generation: cluster.generation,
                operation: decision.operation,
                attempt: decision.attempt,
              },
              decision.since,
            ),
          ),
          deps.settings,
          now,
        )
      : resolveExecution(decision, await deps.lookup.read(decision.execution), deps.settings, now);
  const fields = { decision: `in-flight-${resolution.kind}` };
  switch (resolution.kind) {
    case 'wait':
      if (resolution.overdue) log.warn(`${resolution.message}; past EXECUTION_TIMEOUT`, fields);
      else log.info(resolution.message, fields);
      return undefined;
    case 'relaunch':
      log.warn(resolution.message, fields);
      return { lost: resolution.lost };
    case 'adopt': {
      if (decision.kind !== 'resolve-launch') return undefined;
      log.warn(resolution.message, { ...fields, execution: resolution.found.execution });
      // Observed when Cloud Run created it: never later than the execution's own reports.
      const created = resolution.found.createTime ?? decision.since;
      const moment = Date.parse(created) < Date.parse(decision.since) ? decision.since : created;
      await reportStatus(
        deps.hyperfleet,
        log,
        cluster.id,
        buildStatus(
          {
            kind: 'launched',
            operation: decision.operation,
            execution: resolution.found.execution,
            launchedAt: decision.since,
            attempt: decision.attempt,
            launchId: decision.launchId,
          },
          cluster.generation,
          observedAt(moment, now),
        ),
      );
      return undefined;
    }
    case 'report':
      log.warn(resolution.message, fields);
      await reportStatus(
        deps.hyperfleet,
        log,
        cluster.id,
        buildStatus(
          resolution.outcome,
          resolution.generation,
          observedAt(resolution.observedAt, now),
        ),
      );
      return undefined;
  }
}
