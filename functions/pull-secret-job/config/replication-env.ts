import * as z from 'zod';
import { locationProblem } from '../replication/location-id';

/**
 * ALLOWED_REPLICATION_LOCATIONS: the regions a cluster spec may ask its pull secret to be
 * replicated to, comma-separated. Unset or empty allows none: data residency is a promise the
 * operator makes (keys, org policies, contracts), so no cluster may choose a region until the
 * operator has named it.
 */
export const allowedReplicationLocations = z
  .string()
  .transform((text, ctx): string[] => {
    const locations = text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    for (const location of locations) {
      const problem = locationProblem(location);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
    return [...new Set(locations)];
  })
  .optional();

const KMS_LOCATION = /^projects\/[^/]+\/locations\/([^/]+)\//;

/**
 * Why the fleet's one CMEK key cannot serve the allowed regions, or undefined. A user-managed
 * replica needs a key in its own location, so a key with a fixed location serves only that
 * region: allowing others would fail every cluster that chose them. Found at start, not per run.
 */
export function fleetKeyServesAllowed(
  kmsKeyName: string | undefined,
  allowed: readonly string[] | undefined,
): string | undefined {
  const keyLocation = kmsKeyName ? KMS_LOCATION.exec(kmsKeyName)?.[1] : undefined;
  if (keyLocation === undefined || keyLocation === '{location}' || !allowed) return undefined;
  const unserved = allowed.filter((location) => location !== keyLocation);
  if (unserved.length === 0) return undefined;
  const instead = keyLocation === 'global' ? '' : `, or allow only ${keyLocation}`;
  return `lists ${unserved.join(', ')}, but KMS_KEY_NAME is one key in location "${keyLocation}", and each user-managed replica needs a key in its own location. Write {location} in KMS_KEY_NAME (projects/P/locations/{location}/keyRings/R/cryptoKeys/K, with REPLICATION_POLICY=user-managed:...) and create that key in every allowed region${instead}`;
}
