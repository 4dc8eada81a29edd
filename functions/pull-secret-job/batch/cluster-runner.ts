import { ConfigError } from '../../../shared/errors';
import type { SecretManagerServiceClient } from '../../../shared/gcp/secret-manager-client';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { executionEnv, type LaunchRequest } from '../../../shared/launch/execution-env';
import { loadJobConfig } from '../config/config';
import { jobDependencies, resultPublisher } from '../run/job-clients';
import { runPullSecretJob } from '../run/run-pull-secret-job';
import type { ResultPublisher } from '../telemetry/result-publisher';
import type { ConnectGatewayPacer } from './connect-gateway-pacing';

/**
 * Runs one cluster's apply in this process as its own execution would, sharing the clients a
 * process can share: the task's Secret Manager channel and one results publisher for the whole task.
 */
export class ClusterRunner {
  private publisher: Promise<ResultPublisher> | undefined;

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** The task's Secret Manager channel (the caller closes it). */
    private readonly client: SecretManagerServiceClient,
    private readonly logger: Logger,
    private readonly redactor: SecretRedactor,
    /** Holds a cluster behind Connect Gateway until its calls fit the task's share of the quota. */
    private readonly pacer?: ConnectGatewayPacer,
  ) {}

  async run(request: LaunchRequest): Promise<Pick<JobResult, 'outcome'>> {
    const log = this.logger.child({ cluster_id: request.clusterId });
    let config;
    try {
      config = loadJobConfig({
        ...this.env,
        ...executionEnv(request, {
          ...(this.env.TRACEPARENT ? { traceparent: this.env.TRACEPARENT } : {}),
        }),
      });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      log.error(`Not run: ${error.message}`, { decision: 'batch-config-refused' });
      return { outcome: 'failed' };
    }
    // The management cluster as the run resolves it (MANAGEMENT_CLUSTER, else the default).
    await this.pacer?.before(config.kubernetes?.access);
    const deps = jobDependencies(config, this.client, this.logger, this.redactor);
    const result = await runPullSecretJob(config, deps, { dryRun: false });
    if (config.resultsTopic) {
      const topic = config.resultsTopic;
      this.publisher ??= resultPublisher(topic, {
        logger: this.logger,
        redactor: this.redactor,
        timeoutMs: config.apiTimeoutMs,
      });
      await (await this.publisher).publish(result);
    }
    log.info(
      `Cluster ${request.clusterId}: ${result.outcome}${result.reason ? ` (${result.reason})` : ''}`,
      {
        decision: 'batch-cluster-done',
        outcome: result.outcome,
        ...(result.reason ? { reason: result.reason } : {}),
      },
    );
    return result;
  }

  async close(): Promise<void> {
    if (this.publisher) await (await this.publisher.catch(() => undefined))?.close();
  }
}
