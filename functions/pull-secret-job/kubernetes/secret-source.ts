import { DEFAULT_VERSION_ANNOTATION } from './default-version';

// What the Kubernetes Secret says about where its bytes are in Secret Manager: two annotations,
// and a third when they came from the platform default (its version number, which also orders
// writes: default-version.ts), written with every create and update (sync-kubernetes.ts) and
// chosen by run/tenant-copy.ts (secretSource; docs/design/job-protocol.md, "What the job writes").

export const SOURCE_ANNOTATIONS = {
  /** The Secret Manager version a reader reads: `projects/P/secrets/S/versions/current`. */
  path: 'hyperfleet.io/gcp-secret-path',
  /** The number of the version of that secret the bytes came from (provenance). */
  version: 'hyperfleet.io/gcp-secret-version',
  /** The platform default's version number the bytes came from; absent for an own pull secret. */
  defaultVersion: DEFAULT_VERSION_ANNOTATION,
} as const;

/** Where the Secret's bytes are in Secret Manager. */
export interface SecretSource {
  /** `hyperfleet.io/gcp-secret-path`: the version to read (an alias, `latest` or a pinned number). */
  readonly path: string;
  /** `hyperfleet.io/gcp-secret-version`: the version number the bytes came from; unknown in a dry run. */
  readonly version?: string;
  /**
   * `hyperfleet.io/default-version`: the number of the platform default's version the bytes came
   * from (decimal), whether or not they were copied to the tenant; undefined for an own pull secret.
   */
  readonly defaultVersion?: string;
}

/** The annotations that say it. */
export const sourceAnnotations = (source: SecretSource): Record<string, string> => ({
  [SOURCE_ANNOTATIONS.path]: source.path,
  ...(source.version !== undefined ? { [SOURCE_ANNOTATIONS.version]: source.version } : {}),
  ...(source.defaultVersion !== undefined
    ? { [SOURCE_ANNOTATIONS.defaultVersion]: source.defaultVersion }
    : {}),
});

/**
 * The annotations a write must remove: the default's version once the bytes no longer come from
 * the default (the cluster got its own pull secret), so it never claims a provenance it lost.
 */
export const staleSourceAnnotations = (
  annotations: Readonly<Record<string, string>>,
  source: SecretSource,
): string[] =>
  source.defaultVersion === undefined && SOURCE_ANNOTATIONS.defaultVersion in annotations
    ? [SOURCE_ANNOTATIONS.defaultVersion]
    : [];

/**
 * True when a Secret's annotations already say where its bytes are. A Secret whose bytes are right
 * but whose annotations are not (written before `gcp-secret-path` named `current`, or the same bytes
 * now from another source: the default copied, or no longer) is patched once, so they never lie.
 */
export function namesSource(
  annotations: Readonly<Record<string, string>>,
  source: SecretSource,
): boolean {
  return (
    Object.entries(sourceAnnotations(source)).every(([key, value]) => annotations[key] === value) &&
    staleSourceAnnotations(annotations, source).length === 0
  );
}
