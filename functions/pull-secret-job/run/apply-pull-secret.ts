import { AdapterError } from '../../../shared/errors';
import { versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import type { Logger } from '../../../shared/logging/logger';
import { pullSecretFingerprint } from '../../../shared/pull-secret/fingerprint';
import { pullSecretBytes } from '../../../shared/pull-secret/merge';
import { parsePullSecret, type DockerConfigJson } from '../../../shared/pull-secret/validate';
import {
  afterLostClaim,
  claimFor,
  isLost,
  recheckIn,
  type ClaimOutcome,
  type LostClaim,
} from '../claim/claim';
import { checkCluster, supersededBy } from '../claim/cluster-check';
import type { JobConfig, PullSecretSource } from '../config/config';
import { kubernetesLabels, secretManagerLabels } from '../config/labels';
import { recordingPlaces } from '../places/place-record';
import { placeSecret } from '../places/place-secret';
import { targetPlace } from '../places/remove-places';
import { unaliasVersions } from '../secret-manager/publish-version';
import { resolveReplication } from '../replication/resolve-replication';
import type { Replication, SecretStore } from '../secret-manager/secret-store';
import {
  DIRECT_RUN_PUBLISHER,
  syncSecretManager,
  type SecretManagerOutcome,
} from '../secret-manager/sync-secret-manager';
import { kubernetesPhaseAttributes, runPhase, withPhaseSpan } from '../telemetry/job-trace';
import { placeContext, summarise, type JobDependencies, type Progress } from './run-context';
import { resolvePullSecret, type ResolvedPullSecret } from './resolve-pull-secret';
import {
  copiesToTenant,
  keepDefaultOutOfTenant,
  pullSecretOrigin,
  secretSource,
} from './tenant-copy';

/** One apply run's context, as every phase of it needs it. */
interface ApplyRun {
  readonly config: JobConfig;
  readonly deps: JobDependencies;
  readonly options: { dryRun: boolean };
  readonly log: Logger;
  readonly progress: Progress;
}

/** The pull secret as resolved, validated and merged: what the writing phases store. */
interface ValidPullSecret {
  readonly from: Parameters<typeof pullSecretOrigin>[0];
  readonly source: PullSecretSource;
  readonly parsed: DockerConfigJson;
  readonly bytes: Buffer;
  /** The Secret Manager version it was read from (the platform default), by number. */
  readonly readFrom?: string | undefined;
}

/**
 * An apply: resolve the pull secret (reading the cluster), check that the cluster still wants this
 * generation, validate, claim the work (recording the Kubernetes target with it), store it in
 * Secret Manager (checking the cluster again before publishing), then write it to the management
 * cluster (checking it there when nothing was published). A check that
 * finds the cluster deleting, gone or at a newer generation stops the run as superseded
 * (cluster-check.ts); after the Secret Manager phase it also withdraws the version it added when
 * the cluster is going away (the delete's tombstone must not get bytes back: withdrawAfterDelete).
 */
export async function applyPullSecret(run: ApplyRun): Promise<string | LostClaim> {
  const { config, deps, options, log, progress } = run;
  const resolved = await resolve(run);
  if (resolved === 'gone') {
    await checkCluster(deps, config, 'before the first write', log, { cluster: undefined });
    return { kind: 'superseded', cluster: { kind: 'gone' } };
  }
  const known = resolved.cluster ? { cluster: resolved.cluster } : undefined;
  const stale = await checkCluster(deps, config, 'before the first write', log, known);
  if (stale) return { kind: 'superseded', cluster: stale };
  const secret = validPullSecret(run, resolved);
  const replication = await resolveReplication(config, resolved.cluster, { ...deps, log });
  const labels = secretManagerLabels(config);
  const claim = await runPhase(progress, { name: 'claim' }, log, () =>
    claimFor(
      config,
      deps.secretStore,
      { dryRun: options.dryRun, logger: log },
      {
        labels,
        replication,
        ...(config.kubernetes ? { alongWith: recordingTarget(config, config.kubernetes) } : {}),
      },
    ),
  );
  if (isLost(claim)) return claim;
  const stored = await storeInSecretManager(run, secret, { labels, replication }, claim);
  progress.stored = stored;
  const created = claimCreatedSecret(claim);
  // Lost the publication: to a newer apply (its own withdrawal is done: publish-version.ts), or to
  // a delete, whose tombstone must not keep a version this run added or adopted meanwhile.
  if (stored.lost) return withdrawAfterDelete(progress, stored.lost, run, created);
  // A delete requested while we stored is noticed before publishing (sync-secret-manager.ts), or
  // here when there was nothing to publish: either way before the Secret reaches a cluster.
  const late = stored.clusterChecked
    ? undefined
    : await checkCluster(deps, config, 'before the Kubernetes write', log);
  if (late)
    return withdrawAfterDelete(progress, { kind: 'superseded', cluster: late }, run, created);
  if (config.kubernetes) {
    const lost = await writeToKubernetes(run, secret, stored, claim);
    if (lost) return lost;
  }
  return summarise(stored, progress, config, options.dryRun);
}

/** The place record with the Kubernetes target added: it rides along with the claim's write. */
function recordingTarget(config: JobConfig, kubernetes: NonNullable<JobConfig['kubernetes']>) {
  const secretPath = `projects/${config.projectId}/secrets/${config.secretId}`;
  return (annotations: Readonly<Record<string, string>>) =>
    recordingPlaces(annotations, { add: [targetPlace(kubernetes)] }, secretPath);
}

/** The pull secret's texts, from its source and the cluster (read whenever the API is configured). */
async function resolve({
  config,
  deps,
}: ApplyRun): Promise<(ResolvedPullSecret & { source: PullSecretSource }) | 'gone'> {
  if (!config.pullSecretSource) throw new Error('no pull secret source is configured');
  const source = config.pullSecretSource;
  const resolved = await withPhaseSpan('job.resolve', {}, () =>
    resolvePullSecret(config.clusterId, source, config.additionalSpecPath, {
      secretStore: deps.secretStore,
      ...(deps.hyperfleet ? { hyperfleet: deps.hyperfleet } : {}),
    }),
  ).catch((error: unknown) => {
    // Deleted and finalized since the adapter launched us: the cluster wants nothing more
    // (cluster-check.ts, `gone`). A direct run's unknown cluster is an operator's mistake: it fails.
    const launched = config.generation !== undefined;
    if (launched && error instanceof AdapterError && error.reason === 'ClusterNotFound')
      return 'gone' as const;
    throw error;
  });
  if (resolved === 'gone') return resolved;
  // Registered before anything can fail on them: no log line ever shows them.
  deps.redactor?.registerPullSecret(resolved.original);
  if (resolved.additional !== undefined) deps.redactor?.registerPullSecret(resolved.additional);
  return { ...resolved, source };
}

function validPullSecret(
  { deps, log, progress }: ApplyRun,
  resolved: ResolvedPullSecret & { source: PullSecretSource },
): ValidPullSecret {
  const { source } = resolved;
  const parsed = parsePullSecret(resolved.original, 'pull secret');
  const additional =
    resolved.additional === undefined
      ? undefined
      : parsePullSecret(resolved.additional, 'additional pull secret');
  const bytes = pullSecretBytes(resolved.original, parsed, additional);
  deps.redactor?.registerPullSecret(bytes.toString('utf8'));
  progress.fingerprint = pullSecretFingerprint(bytes);
  progress.source = pullSecretOrigin(resolved.from);
  const defaultVersion = versionNumberOf(resolved.readFrom ?? '');
  if (resolved.from === 'secret-manager' && Number.isInteger(defaultVersion))
    progress.defaultVersion = String(defaultVersion);
  log.info('Pull secret validated', {
    phase: 'validate',
    operation: 'validate-pull-secret',
    pull_secret_source: resolved.from,
    additional_pull_secret: additional !== undefined,
    pull_secret_sha256_prefix: progress.fingerprint,
    ...(progress.defaultVersion ? { default_version: progress.defaultVersion } : {}),
    bytes: bytes.length,
  });
  return { from: resolved.from, source, parsed, bytes, readFrom: resolved.readFrom };
}

function storeInSecretManager(
  { config, deps, options, log, progress }: ApplyRun,
  secret: ValidPullSecret,
  { labels, replication }: { labels: Record<string, string>; replication: Replication },
  claim: ClaimOutcome | undefined,
): Promise<SecretManagerOutcome> {
  const target = {
    projectId: config.projectId,
    secretId: config.secretId,
    clusterId: config.clusterId,
    labels,
    replication,
    ...(config.retention ? { retention: config.retention } : {}),
  };
  const syncOptions = {
    logger: log,
    retry: config.retry,
    dryRun: options.dryRun,
    ...(claim?.kind === 'claimed' ? { claimed: claim.secret } : {}),
    ...(claim?.kind === 'claimed' && claim.written ? { claimedSecret: claim.written } : {}),
    publisher:
      config.generation === undefined
        ? DIRECT_RUN_PUBLISHER
        : {
            generation: config.generation,
            lostIn: (current: Parameters<typeof recheckIn>[1]) => recheckIn(config, current, log),
          },
    ...(deps.hyperfleet
      ? { checkBeforePublishing: () => supersededBy(deps, config, 'before publishing', log) }
      : {}),
  };
  const phase = {
    name: 'secret_manager',
    span: 'secretmanager.sync',
    listed: 'secret-manager',
  } as const;
  // The platform default goes to the management cluster only, unless copying is opted in.
  return runPhase(progress, phase, log, () =>
    copiesToTenant(config, secret.from)
      ? syncSecretManager(deps.secretStore, target, secret.bytes, syncOptions)
      : keepDefaultOutOfTenant(deps.secretStore, target, secret, syncOptions),
  );
}

/** The Kubernetes phase; the lost claim when the run must stand aside, a failure thrown. */
async function writeToKubernetes(
  run: ApplyRun,
  secret: ValidPullSecret,
  stored: SecretManagerOutcome,
  claim: ClaimOutcome | undefined,
): Promise<LostClaim | undefined> {
  const { config, deps, options, log, progress } = run;
  const kubernetes = config.kubernetes;
  if (!kubernetes) return undefined;
  // No claim re-check before the write: the generation stamp keeps it from undoing newer work,
  // and the one read after it (afterWriteStep, places/place-secret.ts) re-checks the claim and
  // withdraws if need be.
  const placed = await runPhase(
    progress,
    {
      name: 'kubernetes',
      span: 'kubernetes.sync',
      attributes: kubernetesPhaseAttributes(kubernetes),
      listed: 'kubernetes',
      failureOf: (outcome) =>
        outcome !== 'gone' && 'failure' in outcome ? outcome.failure : undefined,
    },
    log,
    () =>
      placeSecret(placeContext(config, kubernetes, deps, log, options), {
        labels: kubernetesLabels(config),
        dockerConfigJson: secret.bytes,
        source: secretSource(stored, secret.source, secret.readFrom),
        claimed: claim?.kind === 'claimed',
      }),
  );
  if (placed === 'gone') return { kind: 'superseded' };
  progress.pushed = placed.pushed;
  if ('lost' in placed) {
    // The Secret just written, removed again because a delete took the work over meanwhile.
    if (placed.withdrawn) progress.cleaned = [placed.withdrawn];
    return withdrawAfterDelete(progress, placed.lost, run, claimCreatedSecret(claim));
  }
  progress.cleaned = placed.cleaned;
  progress.kept = placed.kept;
  if (placed.failure) throw placed.failure;
  return undefined;
}

/**
 * After an apply lost to a delete (its claim taken by one, or the cluster found deleting or gone),
 * destroys the version it added or adopted, even one it had published as `current`: the delete may
 * have listed the versions before ours landed (secret-manager/delete-pull-secret.ts, the
 * tombstone), and nobody else would ever destroy it, so the tombstone would hold the customer's pull
 * secret again. Aliases naming it go first (no version is destroyed while an alias names it:
 * publish-version.ts). A secret this run's claim created (the delete's tombstone had expired) gets
 * the tombstone's ttl, so it does not stay for good. A loss to a newer apply generation keeps the
 * version (afterLostClaim, claim/claim.ts; the publication's own withdrawal is publish-version.ts).
 * Best effort: the run ends superseded either way, and a failure is logged.
 */
async function withdrawAfterDelete(
  progress: Progress,
  lost: LostClaim,
  run: {
    config: JobConfig;
    deps: Pick<JobDependencies, 'secretStore'>;
    log: Logger;
    options: { dryRun: boolean };
  },
  createdSecret: boolean,
): Promise<LostClaim> {
  const { config, deps, log, options } = run;
  const stored = progress.stored;
  if (afterLostClaim(lost) !== 'withdraw' || stored?.version !== 'added' || options.dryRun)
    return lost;
  const store: SecretStore = deps.secretStore;
  const fields = {
    phase: 'secret-manager',
    operation: 'withdraw-version',
    version: stored.versionName,
  };
  try {
    await unaliasVersions(store, stored.secretPath, [stored.versionName], {
      logger: log,
      retry: config.retry,
    });
    // A version the delete destroyed first answers FAILED_PRECONDITION: done all the same.
    await store.destroyVersion(stored.versionName);
    progress.stored = {
      ...stored,
      destroyedVersions: [...stored.destroyedVersions, stored.versionName],
    };
    if (createdSecret) await store.expireAfter(stored.secretPath, config.tombstoneTtlSeconds);
    log.warn(
      `The cluster's pull secret is being removed: destroyed ${stored.versionName}, which this run had added`,
      fields,
    );
  } catch (error) {
    log.warn(
      `Could not destroy ${stored.versionName} after losing to a delete: ${error instanceof Error ? error.message : String(error)}`,
      fields,
    );
  }
  return lost;
}

/** Whether this run's claim created the secret (the delete's tombstone, if any, had expired). */
function claimCreatedSecret(claim: ClaimOutcome | undefined): boolean {
  return claim?.kind === 'claimed' && claim.secret === 'created';
}
