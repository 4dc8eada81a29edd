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
import { describeFirstIssue } from '../../../shared/zod-issue';
import type { PullSecretSettings } from '../../../shared/pull-secret/pull-secret-reference';
import type { BatchLaunch } from '../launch-queue/batch-launch';

// The fleet-requests topic's messages, which reach the adapter beside Sentinel's events: Secret
// Manager's notifications about the platform default pull secret (its `topics`), and the fleet
// command's resync requests. What each is and what it asks for, pure: at most one batch launch
// (launch-queue/batch-launch.ts), an alert, or nothing (flows/fleet-request-flow.ts acts on it).
// Nothing in a message is followed as a name: a rotation reads the configured default secret.

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
        specPath: pullSecret.specPath,
        additionalSpecPath: pullSecret.additionalSpecPath,
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
export function revoked(secret: string, version: string, eventType: string): FleetAction {
  return {
    kind: 'alert',
    message: `The default pull secret ${secret} version ${version || '?'} was ${eventType === 'SECRET_VERSION_DISABLE' ? 'disabled' : 'destroyed'} and no newer version is enabled: nothing is fanned out; clusters keep the bytes they have. If it was leaked, add a new version (a rotation) — see docs/operations.md, "Rotating the default pull secret".`,
    fields: { secret, version, event_type: eventType },
  };
}
