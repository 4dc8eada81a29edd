import * as z from 'zod';

// What a user-managed replica location may be. Secret Manager replicates a secret to regions
// only ("Secret Manager does not support zones, dual-regional locations, or multi-regional
// locations" for replicas: https://cloud.google.com/secret-manager/docs/locations), and Google
// Cloud region ids are a geography, a direction and a number: us-central1, europe-west12,
// northamerica-northeast2, me-central2. The shape is checked before a value goes anywhere: a
// location becomes part of a request (and of a KMS key name with {location}), and in the cluster
// spec it is the customer's text.

/** A region id: lowercase letters, one hyphen, lowercase letters and 1-2 digits; 63 at most. */
export const LOCATION_ID = /^[a-z]{2,20}-[a-z]{2,20}[0-9]{1,2}$/;

/** How many locations one secret may be asked to live in: more is a mistake, not a need. */
export const MAX_LOCATIONS = 16;

/** How much of a refused value a message quotes (JSON-escaped): enough to recognise it. */
const QUOTED_CHARS = 40;

/** A value as a message may show it: JSON-quoted (control characters escaped) and cut short. */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const cut = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
  return JSON.stringify(cut);
}

/** Why `value` is not a region id, or undefined when it is one. */
export function locationProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `${quoteValue(value)} is not a string`;
  if (LOCATION_ID.test(value)) return undefined;
  if (LOCATION_ID.test(value.toLowerCase()))
    return `${quoteValue(value)} must be lowercase (${value.toLowerCase()})`;
  return `${quoteValue(value)} is not a Google Cloud region id such as us-central1 or europe-west4 (Secret Manager replicates to regions only: no zones, multi-regions, paths or other characters)`;
}

/**
 * A list of region ids, at least one, at most MAX_LOCATIONS, no repeats; each issue names the
 * offending entry (its index and its quoted value). `what` names the list in the messages.
 */
export function locationList(what: string) {
  return z
    .array(z.unknown(), { message: `${what} must be a list of region ids` })
    .transform((values, ctx): string[] => {
      if (values.length === 0)
        ctx.addIssue({ code: 'custom', message: `${what} must name at least one region` });
      if (values.length > MAX_LOCATIONS)
        ctx.addIssue({
          code: 'custom',
          message: `${what} names ${values.length} locations; at most ${MAX_LOCATIONS} are accepted`,
        });
      values.slice(0, MAX_LOCATIONS + 1).forEach((value, index) => {
        const problem = locationProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: `${what}[${index}]: ${problem}` });
        else if (values.indexOf(value) !== index)
          ctx.addIssue({ code: 'custom', message: `${what}[${index}]: ${value} is listed twice` });
      });
      return values as string[];
    });
}
