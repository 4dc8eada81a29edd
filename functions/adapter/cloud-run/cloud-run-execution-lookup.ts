import { callTimeoutMs } from '../../../shared/events/delivery-deadline';
import type { protos, v2 } from '@google-cloud/run';
import { toAdapterError } from '../../../shared/gcp/grpc-failure';
import type {
  ExecutionReader,
  ExecutionSummary,
} from '../../../shared/executions/execution-reader';
import { timestampToIso } from '../../../shared/gcp/timestamp';
import { matchLaunch, type ExecutionLookup, type LaunchQuery } from './execution-lookup';
import type { LaunchedExecution } from './job-launcher';

/** Executions created this long before the intent cannot be its launch (clock skew allowance). */
const CLOCK_SKEW_MS = 5 * 60_000;
const PAGE_SIZE = 50;
/** A bound on one search (1,000 executions); a job launching faster than that is not expected. */
const MAX_PAGES = 20;

/**
 * ExecutionLookup over the Cloud Run Admin API. ListExecutions has no filter, so it pages through
 * the job's executions newest first and stops at the first page that reaches back before the
 * intent; GetExecution goes through the execution reader the reporter uses too
 * (shared/executions/: one reading of an execution).
 */
export class CloudRunExecutionLookup implements ExecutionLookup {
  constructor(
    private readonly client: v2.ExecutionsClient,
    private readonly reader: ExecutionReader,
    private readonly jobName: string,
    private readonly options: { timeoutMs: number },
  ) {}

  async findLaunched(query: LaunchQuery): Promise<LaunchedExecution | undefined> {
    const oldest = Date.parse(query.since) - CLOCK_SKEW_MS;
    let sameWork: LaunchedExecution | undefined;
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      let executions: protos.google.cloud.run.v2.IExecution[];
      let next: string;
      try {
        const [list, , response] = await this.client.listExecutions(
          { parent: this.jobName, pageSize: PAGE_SIZE, pageToken },
          {
            autoPaginate: false,
            timeout: callTimeoutMs(this.options.timeoutMs, 'ListExecutions'),
            retry: null,
          },
        );
        executions = list;
        next = response?.nextPageToken ?? '';
      } catch (error) {
        throw toAdapterError(error, {
          service: 'Cloud Run',
          operation: 'ListExecutions',
          resource: this.jobName,
          identityHint: "the adapter's service account (roles/run.viewer on the job)",
        });
      }
      let reachedBack = executions.length === 0;
      for (const execution of executions) {
        const created = timestampToIso(execution.createTime);
        if (created && Date.parse(created) < oldest) reachedBack = true;
        const env = Object.fromEntries(
          (execution.template?.containers ?? [])
            .flatMap((c) => c.env ?? [])
            .flatMap((v) => (v.name ? [[v.name, v.value ?? '']] : [])),
        );
        const match = matchLaunch(env, query);
        if (match === 'none' || !execution.name) continue;
        const found = { execution: execution.name, ...(created ? { createTime: created } : {}) };
        if (match === 'launch-id') return found;
        sameWork ??= found;
      }
      if (reachedBack || !next) return sameWork;
      pageToken = next;
    }
    return sameWork;
  }

  read(execution: string): Promise<ExecutionSummary | undefined> {
    return this.reader.read(execution);
  }
}
