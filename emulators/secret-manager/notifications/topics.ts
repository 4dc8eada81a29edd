import { status } from '@grpc/grpc-js';
import { GrpcError } from '../../common/grpc-error';

/**
 * "Secrets can be configured with a list of up to 10 Pub/Sub topics"
 * (https://cloud.google.com/secret-manager/docs/event-notifications; Secret.topics in
 * resources.proto: "A list of up to 10 Pub/Sub topics").
 */
export const MAX_TOPICS = 10;

/**
 * `projects/*\/topics/*` (Topic.name in resources.proto), the topic id as Pub/Sub allows it: a
 * letter first, 3-255 letters, digits, `-`, `_`, `.`, `~`, `+` or `%`, not starting with `goog`
 * (https://cloud.google.com/pubsub/docs/pubsub-basics, "Resource names"). Secret Manager's own
 * wording for a bad name is not published; this one says what is expected.
 */
const TOPIC_NAME = /^projects\/[^/]+\/topics\/([A-Za-z][A-Za-z0-9\-_.~+%]{2,254})$/;

/** Secret.topics as proto-loader gives it (snake_case, `name` only). */
export type ProtoTopics = readonly ({ name?: string | null } | null | undefined)[] | undefined;

const invalid = (message: string) => new GrpcError(status.INVALID_ARGUMENT, message);

/**
 * The topic names of a Secret's `topics`, in the order given, or INVALID_ARGUMENT: more than ten,
 * a name not of a Pub/Sub topic, or the same topic twice (the emulator's choice: the service's
 * answer to a repeated topic is not documented, and refusing it keeps one message per topic).
 */
export function checkTopics(topics: ProtoTopics): string[] {
  const names = (topics ?? []).map((topic) => topic?.name ?? '');
  if (names.length > MAX_TOPICS)
    throw invalid(`A secret can have at most ${MAX_TOPICS} topics; got ${names.length}.`);
  for (const name of names) {
    const id = TOPIC_NAME.exec(name)?.[1];
    if (id === undefined || id.toLowerCase().startsWith('goog'))
      throw invalid(
        `Invalid topic name [${name}]: the expected format is projects/{project}/topics/{topic}, the topic id 3-255 characters starting with a letter.`,
      );
  }
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw invalid(`Topic [${repeated}] is listed more than once.`);
  return names;
}
