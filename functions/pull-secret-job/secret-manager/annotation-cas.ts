import { TransientError, isFailureKind } from '../../../shared/errors';
import { parseSecretManagerName } from '../../../shared/gcp/secret-manager-names';
import type { Logger } from '../../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import { sleep } from '../../../shared/sleep';
import type { Replication, SecretMetadata, SecretStore } from './secret-store';

/** What to do with the secret as just read: nothing (an answer), or one conditional write. */
export type AnnotationStep<T> =
  | { readonly done: T }
  /**
   * Replace the annotations (and the version aliases, when given: publish-version.ts) in one
   * UpdateSecret, conditional on the etag just read; `then` is the answer once written.
   */
  | {
      readonly update: Record<string, string>;
      readonly aliases?: Record<string, number>;
      readonly then: T;
    }
  /** Create the absent secret with these annotations (atomic: `exists` means someone was first). */
  | {
      readonly create: {
        labels: Record<string, string>;
        annotations: Record<string, string>;
        replication: Replication;
        /** A tombstone's: Secret Manager deletes it by itself that long after (delete-pull-secret.ts). */
        ttlSeconds?: number;
      };
      readonly then: T;
    };

export interface AnnotationWrite<T> {
  /** The pure decision, taken again on every read: `current` is undefined when the secret is absent. */
  readonly decide: (current: SecretMetadata | undefined) => AnnotationStep<T>;
  /** For the logs and the error: what is written ("the claim", "the place record", "the publication"). */
  readonly what: string;
  /** The reason of the TransientError when the rounds run out. */
  readonly contention: string;
}

// Each conflict means another writer changed the secret meanwhile; a few rounds settle any race.
const MAX_ROUNDS = 5;

type CasOptions = {
  logger: Logger;
  retry: RetryPolicy;
  first?: { current: SecretMetadata | undefined };
};

/**
 * The one compare-and-swap every annotation write of the job goes through (the claim, the place
 * record, the publication of a version): read, decide, write with the etag just read (or create).
 * A conflict, a secret gone meanwhile or a lost answer is never guessed at: the secret is read
 * again and the decision taken again (a write whose answer was lost reads back as applied, and the
 * decision then says done). `first`: a read the caller has just made, used for the first round
 * instead of reading again.
 */
export async function writeAnnotations<T>(
  store: SecretStore,
  secretPath: string,
  write: AnnotationWrite<T>,
  options: CasOptions,
): Promise<T> {
  return (await writeAnnotationsSeen(store, secretPath, write, options)).value;
}

/**
 * writeAnnotations, also answering the secret as this compare-and-swap last saw it: as written,
 * or as read when the decision wrote nothing (undefined: absent). Its etag is what a later
 * conditional write of the same run starts from, without reading again.
 */
export async function writeAnnotationsSeen<T>(
  store: SecretStore,
  secretPath: string,
  write: AnnotationWrite<T>,
  options: CasOptions,
): Promise<{ value: T; seen: SecretMetadata | undefined }> {
  let known = options.first;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    // GetSecret and CreateSecret retry transient failures themselves (GoogleSecretStore).
    const current = known ? known.current : await store.getSecret(secretPath);
    known = undefined;
    const step = write.decide(current);
    if ('done' in step) return { value: step.done, seen: current };
    const answer = await send(store, secretPath, step, current);
    if (typeof answer === 'object') return { value: step.then, seen: answer };
    options.logger.info(
      answer === 'no-answer'
        ? `Writing ${write.what} failed without an answer; reading it again (it may have been applied)`
        : `The secret changed while we wrote ${write.what}; reading it again`,
      { round },
    );
    if (answer === 'no-answer') await sleep(backoffDelayMs(round, options.retry));
  }
  throw new TransientError(
    `Could not write ${write.what} on ${secretPath} in ${MAX_ROUNDS} rounds of read and write (it kept changing, or Secret Manager did not answer). The next execution will try again.`,
    write.contention,
  );
}

async function send<T>(
  store: SecretStore,
  secretPath: string,
  step: Exclude<AnnotationStep<T>, { done: T }>,
  current: SecretMetadata | undefined,
): Promise<SecretMetadata | 'conflict' | 'gone' | 'exists' | 'no-answer'> {
  try {
    if ('create' in step) {
      const name = parseSecretManagerName(secretPath);
      return await store.createSecret(name?.project ?? '', name?.secret ?? '', step.create);
    }
    // An update is only decided on a secret read, so `current` is there.
    const fields = {
      annotations: step.update,
      ...(step.aliases ? { versionAliases: step.aliases } : {}),
    };
    return await store.updateSecret(secretPath, fields, current?.etag ?? '');
  } catch (error) {
    // Not retried blindly: the write may have been applied; the next read tells.
    if (isFailureKind(error, 'transient')) return 'no-answer';
    throw error;
  }
}

/** The same keys with the same values: a write would change nothing. */
export function sameAnnotations(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
