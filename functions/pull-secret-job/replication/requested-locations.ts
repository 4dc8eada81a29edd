import { readPath } from '../../../shared/object-path';
import { InvalidReplicationError } from './invalid-replication';
import { locationList } from './location-id';

/**
 * The regions the cluster spec asks its pull secret to be replicated to (at `specPath`,
 * REPLICATION_LOCATIONS_SPEC_PATH), or undefined when it asks for nothing (the field absent or
 * null): the fleet's replication then applies. Anything else must be a list of region ids; the
 * spec is the customer's text, so a malformed value is refused here, named in the message
 * (JSON-quoted and cut short), and never reaches a request.
 */
export function requestedLocations(
  cluster: unknown,
  specPath: string,
): readonly string[] | undefined {
  const value = readPath(cluster, specPath);
  if (value === undefined || value === null) return undefined;
  const parsed = locationList(specPath).safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => issue.message);
  throw new InvalidReplicationError(
    `The cluster spec's ${specPath} is not a list of regions to replicate the pull secret to: ${problems.join('; ')}. ` +
      `Write a list of Google Cloud regions (e.g. ["us-central1", "us-east1"]), or remove the field to use the fleet's default replication. Nothing was written.`,
  );
}
