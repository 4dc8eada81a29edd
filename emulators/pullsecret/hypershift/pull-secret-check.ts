import * as z from 'zod';

/** Where a HostedCluster looks for its pull secret: its own namespace, in its management cluster. */
export interface SecretLocation {
  readonly managementCluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** What HyperShift's controller concludes about a HostedCluster's `spec.pullSecret`. */
export type PullSecretCheck =
  | { readonly ok: true; readonly registries: number }
  | {
      readonly ok: false;
      readonly reason: 'PullSecretNotFound' | 'PullSecretInvalid';
      readonly message: string;
    };

const secretSchema = z.looseObject({
  type: z.string().optional(),
  data: z.record(z.string(), z.string()).optional(),
});
const dockerConfigSchema = z.looseObject({ auths: z.record(z.string(), z.unknown()) });

/**
 * The checks HyperShift makes before it can pull release images: the Secret exists in the
 * HostedCluster's namespace, is `kubernetes.io/dockerconfigjson`, and `.dockerconfigjson` is JSON
 * with an `auths` object. Messages name the Secret and the rule, never its content.
 */
export function checkPullSecret(secret: unknown, where: SecretLocation): PullSecretCheck {
  const named = `Secret ${where.namespace}/${where.name} in management cluster ${where.managementCluster}`;
  if (secret === undefined)
    return {
      ok: false,
      reason: 'PullSecretNotFound',
      message: `${named} not found: the HostedCluster's spec.pullSecret.name must name a Secret in the HostedCluster's own namespace`,
    };
  const invalid = (why: string): PullSecretCheck => ({
    ok: false,
    reason: 'PullSecretInvalid',
    message: `${named} ${why}`,
  });
  const parsed = secretSchema.safeParse(secret);
  if (!parsed.success) return invalid('is not a Secret object');
  if (parsed.data.type !== 'kubernetes.io/dockerconfigjson')
    return invalid(
      `is of type ${parsed.data.type ?? '(none)'}; HyperShift needs kubernetes.io/dockerconfigjson`,
    );
  const encoded = parsed.data.data?.['.dockerconfigjson'];
  if (encoded === undefined) return invalid('has no .dockerconfigjson key');
  let config: unknown;
  try {
    config = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return invalid('holds a .dockerconfigjson that does not parse as JSON');
  }
  const docker = dockerConfigSchema.safeParse(config);
  if (!docker.success) return invalid('holds a .dockerconfigjson without an "auths" object');
  return { ok: true, registries: Object.keys(docker.data.auths).length };
}
