import { PermanentError } from '../../../shared/errors';

// The platform default's order on a management-cluster Secret. A rotation re-applies every cluster
// on the default at the generation it already has (one batch run, DEFAULT_PULL_SECRET_VERSION
// pinned to the new number), so the generation stamp cannot order it against a run of the same
// generation that read the default a moment earlier (a resync, a relaunch): the later write of the
// older bytes would undo the rotation until the next one. So a Secret made from the default carries
// the number of the default's version its bytes came from, and at the same generation no write may
// lower it. The admission fence refuses the same (management-cluster-fence.yaml.tftpl); the job
// applies the rule first (readToCompare in sync-kubernetes.ts) and stands aside instead of failing
// (docs/design/job-protocol.md,
// "A rotation of the platform default is never undone at the same generation").

/** The annotation: the number of the platform default's version the Secret's bytes came from. */
export const DEFAULT_VERSION_ANNOTATION = 'hyperfleet.io/default-version';

/**
 * The default version stamped on a Secret; undefined when it has none (its own pull secret, or
 * written before the stamp existed) or when the value is not a decimal version number as the job
 * writes it (edited by hand: it orders nothing, as the fence reads it too).
 */
export function stampedDefaultVersion(
  annotations: Readonly<Record<string, string>> | undefined,
): number | undefined {
  const value = annotations?.[DEFAULT_VERSION_ANNOTATION];
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value)) return undefined;
  return Number(value);
}

/** What this run writes: its generation (undefined for direct runs) and default version, if any. */
export interface DefaultVersionWrite {
  readonly generation?: number | undefined;
  /** The default's version number the bytes came from (decimal); undefined for an own pull secret. */
  readonly defaultVersion?: string | undefined;
}

/** A newer default already there: `stored` is on the Secret; `mine` is this run's (none: its own). */
export interface NewerDefault {
  readonly stored: number;
  readonly mine?: number;
  readonly generation: number;
}

/**
 * The ordering rule, pure: a Secret stamped with this run's generation and default version N is
 * not overwritten by a run whose default version is lower than N, or that has none (the fence
 * refuses removing the stamp at the same generation, as it refuses removing the generation stamp).
 * Another generation is the generation stamp's to order; runs without a generation (direct runs)
 * are outside the order; an unreadable stamp orders nothing. Numbers, never text: 10 > 9.
 */
export function newerDefaultStored(
  stamped: {
    /** The Secret's generation stamp as the generation rule reads it (stampedGeneration). */
    readonly generation: number | undefined;
    readonly annotations: Readonly<Record<string, string>> | undefined;
  },
  mine: DefaultVersionWrite,
): NewerDefault | undefined {
  const { annotations } = stamped;
  if (mine.generation === undefined) return undefined;
  if (stamped.generation !== mine.generation) return undefined;
  const stored = stampedDefaultVersion(annotations);
  if (stored === undefined) return undefined;
  const own = stampedDefaultVersion(
    mine.defaultVersion === undefined
      ? undefined
      : { [DEFAULT_VERSION_ANNOTATION]: mine.defaultVersion },
  );
  if (own !== undefined && own >= stored) return undefined;
  return { stored, ...(own !== undefined ? { mine: own } : {}), generation: mine.generation };
}

/** The sentence the result and the log say. */
export function describeNewerDefault(newer: NewerDefault): string {
  return `the Kubernetes Secret already holds platform default version ${newer.stored} at generation ${newer.generation}, newer than ${newer.mine === undefined ? 'this execution, which has no default version' : `this execution's version ${newer.mine}`} (${DEFAULT_VERSION_ANNOTATION}; a rotation wrote it)`;
}

/**
 * A run of the same generation already wrote a newer default version there: this one stops without
 * writing (it stands aside: place-secret.ts). Permanent only so that, should it escape, no retry
 * repeats a write that must not happen.
 */
export class NewerDefaultError extends PermanentError {
  constructor(
    readonly where: string,
    readonly newer: NewerDefault,
  ) {
    super(`${where}: ${describeNewerDefault(newer)}; left as it is.`, 'SupersededExecution');
  }
}
