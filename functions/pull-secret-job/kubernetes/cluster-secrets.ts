/** A dockerconfigjson Secret as read from the management cluster. */
export interface ClusterSecret {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The `.dockerconfigjson` bytes, if the key is present. */
  readonly dockerConfigJson: Buffer | undefined;
  readonly resourceVersion: string;
}

/** A Secret that is not ours stands at the place: the job learns nothing else about it. */
export const FOREIGN = 'foreign' as const;

/** What probeOwn found. */
export type OwnProbe = ClusterSecret | undefined | typeof FOREIGN;

/** What the job wants the Secret to be. */
export interface DesiredClusterSecret {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Annotations of ours an update removes (a create has none to remove). */
  readonly removedAnnotations?: readonly string[];
  readonly dockerConfigJson: Buffer;
}

/** The namespace does not exist (yet): placement may still be creating it. */
export class NamespaceMissingError extends Error {
  constructor(readonly namespace: string) {
    super(`namespace "${namespace}" not found`);
  }
}

/** Someone else wrote first: a create found the Secret, or an update carried a stale resourceVersion. */
export class WriteConflictError extends Error {}

/**
 * The Kubernetes Secret operations the job needs. Transient failures are retried inside; permanent
 * ones (401, 403, 422) are thrown as PermanentError; the two classes above are for the caller.
 */
export interface ClusterSecrets {
  /**
   * Our Secret as it is now, undefined when there is none, FOREIGN when a Secret is there that is
   * not ours (labels managed-by=hyperfleet, adapter=pullsecret and this cluster-id). A dry-run
   * PATCH, not a GET: the job has no `get`, `list` or `watch` on Secrets, so code running as the
   * job cannot read anyone else's (threat 1 of SECURITY.md). The patch's `test` operations on
   * those labels answer our own Secret and refuse a foreign one with 422 and no content; the dry
   * run stores nothing. Being a PATCH it needs the `patch` verb and passes admission, where the
   * fence admits it only for our own pull secret.
   */
  probeOwn(namespace: string, name: string, clusterId: string): Promise<OwnProbe>;
  create(secret: DesiredClusterSecret): Promise<ClusterSecret>;
  /**
   * Writes the desired labels, annotations and data key into the Secret if it is still at
   * `resourceVersion`, keeping every field another actor owns (ownerReferences, finalizers,
   * foreign labels, annotations and data keys).
   */
  update(secret: DesiredClusterSecret, resourceVersion: string): Promise<ClusterSecret>;
  /** Deletes the Secret if it is still at `resourceVersion`; false when it was already gone. */
  delete(namespace: string, name: string, resourceVersion: string): Promise<boolean>;
}
