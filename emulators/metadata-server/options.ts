import * as z from 'zod';
import { parseDurationMs } from '../../shared/config/durations';
import { derivedNumber, derivedProjectNumber } from '../common/derived-number';
import { DEFAULT_SCOPES, DEFAULT_TOKEN_LIFETIME_SECONDS } from './rules';

/** Google issues service account tokens for at most 12 hours (with the org policy that allows it). */
export const MAX_TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;

/** A token lifetime in whole seconds, 1 s to 12 h. */
export const tokenLifetimeSchema = z
  .number()
  .int('the token lifetime must be a whole number of seconds')
  .min(1, 'the token lifetime must be at least 1s')
  .max(MAX_TOKEN_LIFETIME_SECONDS, 'the token lifetime must be at most 12h');

/** A duration text ("330s", "5m") as a token lifetime in seconds. */
export const lifetimeTextSchema = z
  .string()
  .transform((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is not a duration such as 330s or 5m` });
      return z.NEVER;
    }
    return ms / 1000;
  })
  .pipe(tokenLifetimeSchema);

/** The metadata server's options were not usable; the message names each and how to fix it. */
export class MetadataServerOptionsError extends Error {}

/** `P` of a `NAME@P.iam.gserviceaccount.com` account, the project that owns it. */
const projectOf = (email: string) =>
  /@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/.exec(email)?.[1];

const optionsSchema = z.object({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(0),
  serviceAccount: z.email('serviceAccount must be a service account email'),
  /**
   * More service accounts, each the identity of its own Cloud Run service or job: each gets its own
   * listener (its own GCE_METADATA_HOST), while one token book and one token info know them all.
   */
  additionalAccounts: z
    .array(z.email('additionalAccounts must be service account emails'))
    .default([]),
  uniqueId: z
    .string()
    .regex(/^[1-9]\d{0,20}$/, 'uniqueId must be a number of at most 21 digits')
    .optional(),
  projectId: z
    .string()
    .regex(
      /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
      'projectId must be a project id such as demo-hyperfleet',
    )
    .optional(),
  projectNumber: z
    .string()
    .regex(/^[1-9]\d{0,18}$/, 'projectNumber must be a number such as 123456789012')
    .optional(),
  region: z
    .string()
    .regex(/^[a-z]+-[a-z]+\d+$/, 'region must be a region such as us-central1')
    .default('us-central1'),
  tokenLifetimeSeconds: tokenLifetimeSchema.default(DEFAULT_TOKEN_LIFETIME_SECONDS),
  defaultScopes: z
    .array(z.string().regex(/^[\x21-\x7e]+$/, 'a scope has no spaces'))
    .min(1, 'defaultScopes needs at least one scope')
    .default([...DEFAULT_SCOPES]),
  now: z.custom<() => number>((value) => typeof value === 'function').optional(),
});

/** Options of startMetadataServer. */
export type MetadataServerOptions = z.input<typeof optionsSchema>;

/** The options with every default filled in. */
export type ResolvedMetadataOptions = Required<Omit<z.output<typeof optionsSchema>, 'now'>> & {
  readonly now: () => number;
};

/**
 * Validates the options and fills the defaults: the unique id a stable 21-digit number derived
 * from the email (as IAM's are 21 digits), the project the account's email names (else
 * `demo-project`), a stable 12-digit project number derived from the project id.
 */
export function resolveOptions(options: MetadataServerOptions): ResolvedMetadataOptions {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success)
    throw new MetadataServerOptionsError(
      `Invalid metadata server options: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}.`,
    );
  const o = parsed.data;
  const projectId = o.projectId ?? projectOf(o.serviceAccount) ?? 'demo-project';
  return {
    ...o,
    uniqueId: o.uniqueId ?? derivedNumber(`unique-id:${o.serviceAccount}`, 21),
    projectId,
    projectNumber: o.projectNumber ?? derivedProjectNumber(projectId),
    now: o.now ?? Date.now,
  };
}
