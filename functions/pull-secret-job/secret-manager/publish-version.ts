import { grpcCode } from '../../../shared/gcp/grpc-failure';
import { versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import type { Logger } from '../../../shared/logging/logger';
import { claimFromAnnotations } from '../../../shared/pull-secret/claim';
import { PUBLISHED_VERSION_ALIAS } from '../../../shared/pull-secret/names';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { LostClaim } from '../claim/claim';
import { writeAnnotations, writeAnnotationsSeen, type AnnotationStep } from './annotation-cas';
import type { SecretMetadata, SecretStore } from './secret-store';

// Adding a version does not make it what readers get: `latest` moves with every AddSecretVersion,
// including a lagging older generation's. So a version becomes current only through one
// compare-and-swap on the secret (its etag): UpdateSecret of the `current` alias and of the
// annotation naming the generation that published it, together, conditional on a read that shows
// this execution still holding its claim and no newer generation published. A newer generation
// wins; the loser withdraws what it added (docs/design/job-protocol.md, "Secret Manager never
// goes back").

/** The generation whose bytes the `current` alias names (absent: a direct run published it, or nobody). */
export const PUBLISHED_GENERATION_ANNOTATION = 'hyperfleet.io-current-generation';

/** Who publishes. */
export interface Publisher {
  /** The execution's generation; undefined for a direct run, which has none to order by. */
  readonly generation?: number;
  /** The claim re-check on the secret as read (claim/claim.ts recheckIn): undefined while held. */
  readonly lostIn: (current: SecretMetadata | undefined) => LostClaim | undefined;
}

/** How publishing went: `published` (the alias names the version) or `lost` (stand aside). */
export type PublishAnswer = { readonly published: true } | { readonly lost: LostClaim };

/** The generation stored as the publisher of `current`; undefined when absent or unreadable. */
export function publishedGeneration(
  annotations: Readonly<Record<string, string>>,
): number | undefined {
  const generation = Number(annotations[PUBLISHED_GENERATION_ANNOTATION]);
  return Number.isInteger(generation) && generation >= 1 ? generation : undefined;
}

/**
 * The pure compare-and-swap decision on the secret as just read, for making `version` current:
 * - the secret is gone: a delete holds the work, lost;
 * - the claim is no longer ours: lost. The claim orders executions, also of one generation (a
 *   relaunch over a lagging attempt, a delete over an apply), and a newer generation whose bytes
 *   equal what is published holds it without publishing anything;
 * - the alias already names `version`: published (our swap landed with its answer lost);
 * - a newer generation published: lost (the invariant's own guard, should claims ever be reset);
 * - else swap: the alias (other aliases kept: the update replaces the whole map) and the
 *   generation annotation (kept as it is by a direct run, which has no generation to say: the
 *   guard against a lagging older generation stays).
 */
export function publishStep(
  current: SecretMetadata | undefined,
  version: number,
  publisher: Publisher,
): AnnotationStep<PublishAnswer> {
  if (!current) return { done: { lost: { kind: 'superseded' } } };
  const lost = publisher.lostIn(current);
  if (lost) return { done: { lost } };
  if (current.versionAliases[PUBLISHED_VERSION_ALIAS] === version)
    return { done: { published: true } };
  const stored = publishedGeneration(current.annotations);
  if (publisher.generation !== undefined && stored !== undefined && stored > publisher.generation) {
    const holder = claimFromAnnotations(current.annotations);
    return { done: { lost: { kind: 'superseded', ...(holder ? { holder } : {}) } } };
  }
  return {
    update:
      publisher.generation === undefined
        ? { ...current.annotations }
        : {
            ...current.annotations,
            [PUBLISHED_GENERATION_ANNOTATION]: String(publisher.generation),
          },
    aliases: { ...current.versionAliases, [PUBLISHED_VERSION_ALIAS]: version },
    then: { published: true },
  };
}

/**
 * Makes `versionName` current (publishStep) through the job's one compare-and-swap
 * (annotation-cas.ts), starting from `known` (the secret as the claim left it) rather than a read.
 * Answers how it went and the secret as last seen (its aliases protect versions from retention).
 */
export async function publishVersion(
  store: SecretStore,
  secretPath: string,
  versionName: string,
  publisher: Publisher,
  options: { logger: Logger; retry: RetryPolicy; known: SecretMetadata | undefined },
): Promise<{ answer: PublishAnswer; seen: SecretMetadata | undefined }> {
  const version = versionNumberOf(versionName);
  const log = options.logger.child({ operation: 'publish-version', version: versionName });
  const { value, seen } = await writeAnnotationsSeen(
    store,
    secretPath,
    {
      decide: (current) => publishStep(current, version, publisher),
      what: `the ${PUBLISHED_VERSION_ALIAS} alias`,
      contention: 'PublishContention',
    },
    { logger: log, retry: options.retry, first: { current: options.known } },
  );
  if ('published' in value) log.info(`Published ${versionName} as ${PUBLISHED_VERSION_ALIAS}`);
  else
    log.warn('Not published: a newer execution holds the claim or published first', {
      claim: 'superseded',
      claimed_by: value.lost.holder?.execution ?? '',
    });
  return { answer: value, seen };
}

/**
 * Whether a version this run adopted (its AddSecretVersion answer was lost, and the version found
 * holds its bytes: sync-secret-manager.ts) may be withdrawn after losing the publication. An adopted
 * version may be another execution's with the same bytes, about to publish it, so it is kept unless
 * a newer generation has already published another one: that generation's executions are done
 * publishing, and an older one cannot publish over it. Without this, a lagging generation whose
 * add landed with its answer lost left its version enabled for good (`latest` serving its old
 * bytes), found by the chaos run (test/faults/chaos.test.ts, seed 6).
 */
export function mayWithdrawAdopted(
  seen: SecretMetadata | undefined,
  versionName: string,
  generation: number | undefined,
): boolean {
  if (!seen || generation === undefined) return false;
  const published = publishedGeneration(seen.annotations);
  const current = seen.versionAliases[PUBLISHED_VERSION_ALIAS];
  return (
    published !== undefined &&
    published > generation &&
    current !== undefined &&
    current !== versionNumberOf(versionName)
  );
}

/**
 * The loser's cleanup: destroys the version it added, and only that, never one an alias names
 * (ours may have been published before we were overtaken, or a customer may alias it). A failure
 * is logged: the version then waits for the next change's retention. Whether it was destroyed.
 */
export async function withdrawLostPublication(
  store: SecretStore,
  versionName: string,
  seen: SecretMetadata | undefined,
  log: Logger,
): Promise<boolean> {
  const aliased = seen ? aliasesOf(seen).has(versionNumberOf(versionName)) : false;
  // A secret gone holds no version to withdraw.
  if (!seen || aliased) return false;
  try {
    await store.destroyVersion(versionName);
  } catch (error) {
    log.warn(`Could not withdraw ${versionName}, added by this superseded execution`, {
      operation: 'withdraw-version',
      reason: 'WithdrawFailed',
      grpc_code: grpcCode(error),
    });
    return false;
  }
  log.info(`Withdrew ${versionName}: a newer execution published first`, {
    operation: 'withdraw-version',
  });
  return true;
}

/**
 * Removes every alias naming one of `versionNames` (with `current`, the publishing generation too)
 * before those versions are destroyed for a reason of their own (a copy of the platform default
 * withdrawn: tenant-copy.ts). Google's reference documents no rule either way on destroying an
 * aliased version, so the job relies on none: the alias goes first, then the version.
 */
export async function unaliasVersions(
  store: SecretStore,
  secretPath: string,
  versionNames: readonly string[],
  options: { logger: Logger; retry: RetryPolicy },
): Promise<void> {
  const doomed = new Set(versionNames.map((name) => versionNumberOf(name)));
  await writeAnnotations(
    store,
    secretPath,
    {
      decide: (current): AnnotationStep<undefined> => {
        const aliases = Object.entries(current?.versionAliases ?? {});
        const kept = Object.fromEntries(aliases.filter(([, number]) => !doomed.has(number)));
        if (!current || Object.keys(kept).length === aliases.length) return { done: undefined };
        const annotations =
          kept[PUBLISHED_VERSION_ALIAS] === undefined
            ? withoutPublisher(current.annotations)
            : { ...current.annotations };
        return { update: annotations, aliases: kept, then: undefined };
      },
      what: 'the aliases of withdrawn versions',
      contention: 'PublishContention',
    },
    options,
  );
}

function withoutPublisher(annotations: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).filter(([key]) => key !== PUBLISHED_GENERATION_ANNOTATION),
  );
}

/** The version numbers some alias names. */
export function aliasesOf(secret: SecretMetadata): ReadonlySet<number> {
  return new Set(Object.values(secret.versionAliases));
}
