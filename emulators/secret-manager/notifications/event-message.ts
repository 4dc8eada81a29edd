import { z } from 'zod';

/**
 * The event types of Secret Manager's notifications
 * (https://cloud.google.com/secret-manager/docs/event-notifications, "Event types").
 * SECRET_VERSION_DESTROY_SCHEDULED (delayed destruction) and SECRET_ROTATE (rotation schedules)
 * belong to features this emulator does not have, so it never sends them.
 */
export type SecretEventType =
  | 'SECRET_CREATE'
  | 'SECRET_UPDATE'
  | 'SECRET_DELETE'
  | 'SECRET_VERSION_ADD'
  | 'SECRET_VERSION_ENABLE'
  | 'SECRET_VERSION_DISABLE'
  | 'SECRET_VERSION_DESTROY'
  | 'SECRET_VERSION_DESTROY_SCHEDULED'
  | 'SECRET_ROTATE';

/** A Pub/Sub message as Secret Manager publishes it: attributes, and the resource as data. */
export interface NotificationMessage {
  readonly attributes: Readonly<Record<string, string>>;
  /** UTF-8 JSON of the Secret or SecretVersion; absent on TOPIC_CONFIGURED. */
  readonly data?: Buffer;
}

type ProtoTimestamp = { seconds: string; nanos: number };

/** A Secret as the emulator answers it (state.ts), snake_case. */
export interface AnsweredSecret {
  readonly name: string;
  readonly replication: unknown;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly version_aliases: Readonly<Record<string, number>>;
  readonly topics?: readonly { name: string }[];
  readonly create_time: ProtoTimestamp;
  readonly expire_time?: ProtoTimestamp;
  readonly etag: string;
}

/** A SecretVersion as the emulator answers it: metadata only, it has no payload field. */
export interface AnsweredVersion {
  readonly name: string;
  readonly state: string;
  readonly create_time: ProtoTimestamp;
  readonly destroy_time?: ProtoTimestamp;
  readonly etag: string;
  readonly client_specified_payload_checksum: boolean;
}

/**
 * "This is a test message with no body or attributes other than eventType: TOPIC_CONFIGURED",
 * sent to every topic of a secret whose topics are set, before the change is known to succeed
 * (the page above, "Event types").
 */
export function topicConfiguredMessage(): NotificationMessage {
  return { attributes: { eventType: 'TOPIC_CONFIGURED' } };
}

/**
 * A notification about a secret or one of its versions. Every message but TOPIC_CONFIGURED
 * carries eventType, dataFormat `JSON_API_V1`, secretId (the secret's full name) and timestamp;
 * a version's event also versionId (the version's full name). The data is "a full JSON
 * serialization of the Secret or SecretVersion resource … encoded in JSON as specified in the
 * proto3 JSON Mapping" (the page above, "Notification format"): never the payload, which is not
 * part of either resource.
 */
export function notificationMessage(
  type: SecretEventType,
  at: Date,
  resource: { secret: AnsweredSecret } | { secretName: string; version: AnsweredVersion },
): NotificationMessage {
  const isVersion = 'version' in resource;
  const json = isVersion ? versionJson(resource.version) : secretJson(resource.secret);
  return {
    attributes: {
      eventType: type,
      dataFormat: 'JSON_API_V1',
      secretId: isVersion ? resource.secretName : resource.secret.name,
      ...(isVersion ? { versionId: resource.version.name } : {}),
      timestamp: at.toISOString(),
    },
    data: Buffer.from(JSON.stringify(json), 'utf8'),
  };
}

/** proto3 JSON: a Timestamp is an RFC 3339 string in UTC. */
function rfc3339(timestamp: ProtoTimestamp): string {
  return new Date(Number(timestamp.seconds) * 1000 + timestamp.nanos / 1e6).toISOString();
}

/** proto3 JSON leaves out fields at their default: empty maps and lists, false, absent messages. */
const nonEmpty = (key: string, map: Readonly<Record<string, unknown>> | readonly unknown[]) =>
  (Array.isArray(map) ? map.length : Object.keys(map).length) > 0 ? { [key]: map } : {};

/** Secret.json_name order as resources.proto declares the fields. */
export function secretJson(secret: AnsweredSecret): Record<string, unknown> {
  return {
    name: secret.name,
    replication: replicationJson(secret.replication),
    createTime: rfc3339(secret.create_time),
    ...nonEmpty('labels', secret.labels),
    ...nonEmpty(
      'topics',
      (secret.topics ?? []).map((topic) => ({ name: topic.name })),
    ),
    ...(secret.expire_time ? { expireTime: rfc3339(secret.expire_time) } : {}),
    etag: secret.etag,
    // int64 values are strings in proto3 JSON.
    ...nonEmpty(
      'versionAliases',
      Object.fromEntries(
        Object.entries(secret.version_aliases).map(([alias, n]) => [alias, String(n)]),
      ),
    ),
    ...nonEmpty('annotations', secret.annotations),
  };
}

export function versionJson(version: AnsweredVersion): Record<string, unknown> {
  return {
    name: version.name,
    createTime: rfc3339(version.create_time),
    ...(version.destroy_time ? { destroyTime: rfc3339(version.destroy_time) } : {}),
    state: version.state,
    etag: version.etag,
    ...(version.client_specified_payload_checksum ? { clientSpecifiedPayloadChecksum: true } : {}),
  };
}

const cmekSchema = z.object({ kms_key_name: z.string().optional() }).nullish();
/** The replication kept as the client sent it (rules.ts checked it on create), read back typed. */
const replicationSchema = z.object({
  automatic: z.object({ customer_managed_encryption: cmekSchema }).nullish(),
  user_managed: z
    .object({
      replicas: z
        .array(
          z.object({ location: z.string().optional(), customer_managed_encryption: cmekSchema }),
        )
        .optional(),
    })
    .nullish(),
});

function cmekJson(cmek: z.infer<typeof cmekSchema>): Record<string, unknown> {
  return cmek?.kms_key_name ? { customerManagedEncryption: { kmsKeyName: cmek.kms_key_name } } : {};
}

function replicationJson(stored: unknown): Record<string, unknown> {
  const replication = replicationSchema.parse(stored);
  if (replication.user_managed)
    return {
      userManaged: {
        replicas: (replication.user_managed.replicas ?? []).map((replica) => ({
          ...(replica.location ? { location: replica.location } : {}),
          ...cmekJson(replica.customer_managed_encryption),
        })),
      },
    };
  return { automatic: cmekJson(replication.automatic?.customer_managed_encryption) };
}
