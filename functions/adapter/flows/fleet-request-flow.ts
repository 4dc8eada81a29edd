import * as z from 'zod';
import {
  FLEET_REQUEST_ATTRIBUTE,
  resyncRequestSchema,
  selectorText,
  type ResyncRequest,
} from '../../../shared/batch/batch-request';
import {
  formatSecretManagerName,
  isProjectNumber,
  parseSecretManagerName,
} from '../../../shared/gcp/secret-manager-names';
import { AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { describeFirstIssue } from '../../../shared/zod-issue';
import type { PullSecretSettings } from '../../../shared/pull-secret/pull-secret-reference';
import { batchTaskCount, batchTaskId, type BatchLaunch } from '../launch-queue/batch-launch';
import type { LaunchQueue } from '../launch-queue/launch-queue';

// The fleet-requests topic's messages, which reach the adapter beside Sentinel's events: Secret
// Manager's notifications about the platform default pull secret (its `topics`), and the fleet
// command's resync requests. Each becomes at most one batch launch (launch-queue/batch-launch.ts)
// or an alert line; nothing in a message is followed as a name: the version a rotation pins is
// built from the configured default secret, never taken from the message.

/** A fleet message as it arrived; undefined from fleetMessageOf: not one (a Sentinel event). */
export type FleetMessage =
  | {
      readonly kind: 'secret-event';
      readonly eventType: string;
      readonly secret?: string;
      readonly version?: string;
    }
  | {
      readonly kind: 'resync';
      readonly request: ResyncRequest;
      /** The Pub/Sub message id: the request's identity (a redelivery keeps it). */
      readonly messageId: string;
    }
  | { readonly kind: 'malformed'; readonly problem: string };

/** Secret Manager's attributes (https://cloud.google.com/secret-manager/docs/event-notifications#message_format). */
const secretEventAttributes = z.looseObject({
  eventType: z.string().min(1).max(100),
  secretId: z.string().max(400).optional(),
  versionId: z.string().max(500).optional(),
});

/**
 * Which fleet message the Pub/Sub message is, by its attributes: Secret Manager sets `eventType`
 * (with `secretId` on every event but the topic test), the fleet command FLEET_REQUEST_ATTRIBUTE.
 */
export function fleetMessageOf(message: {
  readonly attributes?: Readonly<Record<string, string>>;
  readonly data?: Buffer;
  readonly messageId?: string;
}): FleetMessage | undefined {
  const { attributes, data } = message;
  if (!attributes) return undefined;
  if (attributes[FLEET_REQUEST_ATTRIBUTE] !== undefined) {
    let body: unknown;
    try {
      body = JSON.parse(data?.toString('utf8') ?? '');
    } catch {
      return { kind: 'malformed', problem: 'a fleet request whose body is not JSON' };
    }
    const parsed = resyncRequestSchema.safeParse(body);
    if (!parsed.success)
      return { kind: 'malformed', problem: `a fleet request: ${describeFirstIssue(parsed.error)}` };
    if (!message.messageId)
      return { kind: 'malformed', problem: 'a fleet request without a Pub/Sub message id' };
    return { kind: 'resync', request: parsed.data, messageId: message.messageId };
  }
  if (attributes.eventType === undefined) return undefined;
  const parsed = secretEventAttributes.safeParse(attributes);
  if (!parsed.success)
    return {
      kind: 'malformed',
      problem: `a Secret Manager notification: ${describeFirstIssue(parsed.error)}`,
    };
  return {
    kind: 'secret-event',
    eventType: parsed.data.eventType,
    ...(parsed.data.secretId ? { secret: parsed.data.secretId } : {}),
    ...(parsed.data.versionId ? { version: parsed.data.versionId } : {}),
  };
}

export interface FleetSettings {
  readonly pullSecret: PullSecretSettings;
  /** BATCH_CLUSTERS_PER_TASK: how many clusters one task of a batch takes. */
  readonly clustersPerTask: number;
  /** BATCH_TASK_TIMEOUT: the batch execution's task timeout. */
  readonly taskTimeoutMs: number;
}

/** What a fleet message asks for. Pure. */
export type FleetAction =
  | {
      readonly kind: 'launch';
      readonly batch: Omit<BatchLaunch, 'taskCount' | 'taskTimeoutSeconds'>;
      readonly message: string;
    }
  | {
      readonly kind: 'alert';
      readonly message: string;
      readonly fields: { secret: string; version: string; event_type: string };
    }
  | {
      /**
       * A version of the default (`latest`) was disabled or destroyed: the current default only
       * when no newer version is enabled, which Secret Manager's list of enabled versions tells.
       */
      readonly kind: 'check-revocation';
      readonly secret: string;
      readonly version: string;
      readonly eventType: string;
    }
  | { readonly kind: 'ignore'; readonly message: string };

const ROTATING = new Set(['SECRET_VERSION_ADD', 'SECRET_VERSION_ENABLE']);
const REVOKING = new Set([
  'SECRET_VERSION_DISABLE',
  'SECRET_VERSION_DESTROY',
  'SECRET_VERSION_DESTROY_SCHEDULED',
]);

export function decideFleetMessage(message: FleetMessage, settings: FleetSettings): FleetAction {
  const { pullSecret } = settings;
  const paths = {
    specPath: pullSecret.specPath,
    additionalSpecPath: pullSecret.additionalSpecPath,
  };
  if (message.kind === 'malformed')
    return {
      kind: 'ignore',
      message: `Ignored ${message.problem} (acknowledged: it cannot succeed)`,
    };
  if (message.kind === 'resync')
    return {
      kind: 'launch',
      batch: {
        reason: 'resync',
        selector: message.request.selector,
        ...paths,
        ...(pullSecret.defaultVersion ? { defaultVersion: pullSecret.defaultVersion } : {}),
        key: message.messageId,
      },
      message: `Resync of ${selectorText(message.request.selector)} requested${message.request.requested_by ? ` by ${message.request.requested_by.slice(0, 100)}` : ''}${message.request.requested_at ? ` at ${message.request.requested_at}` : ''}`,
    };
  return decideSecretEvent(message, settings);
}

/**
 * Secret Manager names the project by number; configuration usually by id. The secret's own id
 * must match, and a project that is neither ours nor a number is someone else's secret.
 */
function namesConfiguredSecret(
  notified: string | undefined,
  configured: { readonly project: string; readonly secret: string },
): boolean {
  const named = notified ? parseSecretManagerName(notified) : undefined;
  return (
    named !== undefined &&
    named.version === undefined &&
    named.secret === configured.secret &&
    (named.project === configured.project || isProjectNumber(named.project))
  );
}

/** A Secret Manager notification about the secret DEFAULT_PULL_SECRET_VERSION names: rotate, alert or ignore. */
function decideSecretEvent(
  message: Extract<FleetMessage, { kind: 'secret-event' }>,
  settings: FleetSettings,
): FleetAction {
  const { pullSecret } = settings;
  const configured = pullSecret.defaultVersion
    ? parseSecretManagerName(pullSecret.defaultVersion)
    : undefined;
  if (!configured?.version)
    return {
      kind: 'ignore',
      message: `Secret Manager ${message.eventType}: no default pull secret is configured (DEFAULT_PULL_SECRET_VERSION)`,
    };
  if (!namesConfiguredSecret(message.secret, configured))
    return {
      kind: 'ignore',
      message: `Secret Manager ${message.eventType} about ${(message.secret ?? '(no secret)').slice(0, 200)}: not the default pull secret ${formatSecretManagerName({ ...configured, version: undefined })}`,
    };
  const secret = formatSecretManagerName({
    project: configured.project,
    secret: configured.secret,
  });
  const number = message.version ? parseSecretManagerName(message.version)?.version : undefined;
  const versionNumber =
    number !== undefined && /^[1-9][0-9]{0,9}$/.test(number) ? number : undefined;
  const pinned = /^[0-9]+$/.test(configured.version);
  if (ROTATING.has(message.eventType)) {
    if (pinned)
      return {
        kind: 'ignore',
        message: `Secret Manager ${message.eventType} on ${secret}: the default is pinned to version ${configured.version} (DEFAULT_PULL_SECRET_VERSION), so nothing rotates until it names another`,
      };
    if (message.eventType === 'SECRET_VERSION_ADD' && versionNumber === undefined)
      return {
        kind: 'ignore',
        message: `Secret Manager SECRET_VERSION_ADD on ${secret} without a version number in versionId; not rotated`,
      };
    // The batch reads `latest` (the newest enabled version) itself, once per task: the number in
    // the message is only said, never followed (a forged or withdrawn one changes nothing), and the
    // Secrets keep naming the configured version; a run that read an older default cannot
    // overwrite a newer one (the default-version stamp).
    const version = `${secret}/versions/${configured.version}`;
    return {
      kind: 'launch',
      batch: {
        reason: 'rotation',
        selector: { kind: 'default' },
        specPath: pullSecret.specPath,
        additionalSpecPath: pullSecret.additionalSpecPath,
        defaultVersion: version,
        key: `${message.eventType}/${message.version ?? ''}`,
      },
      message: `Default pull secret ${message.eventType === 'SECRET_VERSION_ADD' ? `version ${versionNumber} added` : `version ${versionNumber ?? '?'} enabled`}: rotating every cluster on the default to ${version}`,
    };
  }
  if (REVOKING.has(message.eventType)) {
    if (pinned && versionNumber !== configured.version)
      return {
        kind: 'ignore',
        message: `Secret Manager ${message.eventType} of ${secret} version ${versionNumber ?? '?'}: not the pinned default (version ${configured.version})`,
      };
    if (pinned || versionNumber === undefined)
      return revoked(secret, versionNumber ?? '', message.eventType);
    return {
      kind: 'check-revocation',
      secret,
      version: versionNumber,
      eventType: message.eventType,
    };
  }
  return {
    kind: 'ignore',
    message: `Secret Manager ${message.eventType} on ${secret}: nothing to do`,
  };
}

/** The revoked-default alert: clusters keep the bytes they have; a new version is the way out. */
function revoked(secret: string, version: string, eventType: string): FleetAction {
  return {
    kind: 'alert',
    message: `The default pull secret ${secret} version ${version || '?'} was ${eventType === 'SECRET_VERSION_DISABLE' ? 'disabled' : 'destroyed'} and no newer version is enabled: nothing is fanned out; clusters keep the bytes they have. If it was leaked, add a new version (a rotation) — see docs/operations.md, "Rotating the default pull secret".`,
    fields: { secret, version, event_type: eventType },
  };
}

export interface FleetRequestDependencies {
  readonly queue: LaunchQueue;
  /** LAUNCH_QUEUE: projects/P/locations/L/queues/Q. */
  readonly queueName: string;
  /** How many clusters the HyperFleet API holds (the list's `total`): it sizes the batch. */
  countClusters(): Promise<number>;
  /** The highest enabled version number of a secret (ListSecretVersions state:ENABLED); undefined: none. */
  newestEnabledVersion(secret: string): Promise<number | undefined>;
  readonly settings: FleetSettings;
  readonly logger: Logger;
}

/** Acts on one fleet message; throws on a transient failure so the message is redelivered. */
export async function handleFleetMessage(
  message: FleetMessage,
  deps: FleetRequestDependencies,
): Promise<void> {
  const decided = decideFleetMessage(message, deps.settings);
  const action =
    decided.kind === 'check-revocation' ? await checkRevocation(decided, deps) : decided;
  const log = deps.logger;
  if (action.kind === 'ignore') {
    log.info(action.message, { decision: 'fleet-message-ignored' });
    return;
  }
  if (action.kind === 'check-revocation') return;
  if (action.kind === 'alert') {
    log.error(action.message, { event: 'default-pull-secret-revoked', ...action.fields });
    return;
  }
  const taskCount =
    action.batch.selector.kind === 'clusters'
      ? 1
      : batchTaskCount(await deps.countClusters(), deps.settings.clustersPerTask);
  const batch: BatchLaunch = {
    ...action.batch,
    taskCount,
    taskTimeoutSeconds: Math.ceil(deps.settings.taskTimeoutMs / 1000),
  };
  const task = `${deps.queueName}/tasks/${batchTaskId(batch)}`;
  let queued;
  try {
    queued = await deps.queue.enqueueBatch(task, batch);
  } catch (error) {
    // Refused for good (no right on the queue, an override outside the allow-list): redelivering
    // cannot help, so the message is acknowledged with an ERROR line (the batch alert's filter).
    if (!(error instanceof AdapterError && error.kind === 'permanent')) throw error;
    log.error(`${action.message}: the batch could not be launched: ${error.message}`, {
      event: 'batch-failed',
      reason: batch.reason,
      selector: selectorText(batch.selector),
    });
    return;
  }
  log.info(
    `${action.message}: ${queued === 'queued' ? 'batch launched' : 'already launched'} (${taskCount} task${taskCount === 1 ? '' : 's'})`,
    {
      event: 'batch-launched',
      reason: batch.reason,
      selector: selectorText(batch.selector),
      task_count: taskCount,
      task,
      queued,
    },
  );
}

/**
 * A disabled or destroyed version of `latest`: the current default only when no newer version is
 * enabled (retiring an older one after a rotation is routine). A list that fails (no right, Secret
 * Manager down past its retries) alerts: a revoked default must not go unseen.
 */
async function checkRevocation(
  check: Extract<FleetAction, { kind: 'check-revocation' }>,
  deps: FleetRequestDependencies,
): Promise<FleetAction> {
  let newest: number | undefined;
  try {
    newest = await deps.newestEnabledVersion(check.secret);
  } catch (error) {
    deps.logger.warn(
      `Could not list ${check.secret}'s enabled versions (${error instanceof Error ? error.message : String(error)}): alerting as if version ${check.version} were the current default`,
      { decision: 'default-revocation-unchecked' },
    );
    return revoked(check.secret, check.version, check.eventType);
  }
  if (newest === undefined || Number(check.version) > newest)
    return revoked(check.secret, check.version, check.eventType);
  return {
    kind: 'ignore',
    message: `Secret Manager ${check.eventType} of ${check.secret} version ${check.version}: an older version (version ${newest} is enabled and current); nothing to do`,
  };
}
