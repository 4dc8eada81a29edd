import * as z from 'zod';
import { PermanentError } from '../errors';

/** The Secret Manager payload limit, which a pull secret must also respect. */
export const MAX_PULL_SECRET_BYTES = 64 * 1024;

/** A registry entry of a dockerconfigjson; other fields (email, identitytoken) are kept as they are. */
export interface RegistryAuth {
  readonly auth: string;
  readonly [field: string]: unknown;
}

/** A validated dockerconfigjson. */
export interface DockerConfigJson {
  readonly auths: Readonly<Record<string, RegistryAuth>>;
  readonly [field: string]: unknown;
}

/** The pull secret, or one of its parts, is unusable. Permanent: the user must fix the input. */
export class InvalidPullSecretError extends PermanentError {
  constructor(message: string) {
    super(message, 'InvalidPullSecret');
  }
}

// A registry is a host (with optional port and path) or an http(s) URL, in printable ASCII.
const REGISTRY_PATTERN =
  /^(https?:\/\/)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?(\/[!-~]*)?$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

const entrySchema = z.looseObject({
  auth: z.string({ error: 'has no "auth" string' }).superRefine((auth, ctx) => {
    const problem = authProblem(auth);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

const pullSecretSchema = z.looseObject({
  auths: z
    .record(z.string(), z.unknown(), { error: '"auths" must be an object of registries' })
    .superRefine((auths, ctx) => {
      if (Object.keys(auths).length === 0) {
        ctx.addIssue({ code: 'custom', message: '"auths" must not be empty' });
      }
    }),
});

function authProblem(auth: string): string | undefined {
  if (auth.length === 0) return '"auth" is empty';
  if (auth.length % 4 !== 0 || !BASE64_PATTERN.test(auth)) return '"auth" is not valid base64';
  const decoded = Buffer.from(auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return '"auth" must be base64 of "user:password" (no colon found)';
  if (colon === 0) return '"auth" must be base64 of "user:password" (the user is empty)';
  return undefined;
}

function registryProblem(registry: string): string | undefined {
  if (registry.trim() === '') return 'a registry name is empty';
  if (!REGISTRY_PATTERN.test(registry)) {
    return `registry ${safeName(registry)} is not a host name or URL in ASCII (for example quay.io or registry.example.com:5000)`;
  }
  return undefined;
}

/** Registry names are not secret, but they are user input: quote, escape and bound them. */
function safeName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * Parses and validates a dockerconfigjson. Messages name the part (`label`), the registry and the
 * rule that failed, never a value. `label` tells apart the cluster's pull secret and an
 * additional one.
 */
export function parsePullSecret(raw: string | Buffer, label = 'pull secret'): DockerConfigJson {
  const fail = (problem: string): never => {
    throw new InvalidPullSecretError(
      `The ${label} is invalid: ${problem}. Provide a dockerconfigjson such as {"auths":{"quay.io":{"auth":"<base64 of user:password>"}}}.`,
    );
  };
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  if (bytes.length === 0) return fail('it is empty');
  if (bytes.length > MAX_PULL_SECRET_BYTES) {
    return fail(`it is ${bytes.length} bytes, more than the ${MAX_PULL_SECRET_BYTES}-byte limit`);
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail('it is not valid JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return fail('it must be a JSON object');
  }
  if (!('auths' in json)) return fail('it has no "auths" object');
  const top = pullSecretSchema.safeParse(json);
  if (!top.success) return fail(top.error.issues[0]?.message ?? 'unexpected structure');
  for (const [registry, entry] of Object.entries(top.data.auths)) {
    const nameProblem = registryProblem(registry);
    if (nameProblem) return fail(nameProblem);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return fail(`registry ${safeName(registry)} must be an object with an "auth" field`);
    }
    const checked = entrySchema.safeParse(entry);
    if (!checked.success) {
      return fail(
        `registry ${safeName(registry)} ${checked.error.issues[0]?.message ?? 'is invalid'}`,
      );
    }
  }
  return top.data as DockerConfigJson;
}
