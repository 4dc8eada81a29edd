// Whether the tenant project's effective `gcp.resourceLocations` organization policy lets a
// secret be replicated to a region, decided where the answer is certain and left to Secret Manager
// where it is not. Secret Manager enforces the constraint itself when it creates a secret
// ("Restricting Resource Locations": https://cloud.google.com/resource-manager/docs/organization-policy/defining-locations),
// so this check exists to refuse early with a message naming the policy, never to replace it.
//
// The policy (Org Policy API v2, google/cloud/orgpolicy/v2/orgpolicy.proto, PolicySpec): rules of
// a list constraint hold `values` {allowedValues, deniedValues}, or allowAll, or denyAll; an
// effective policy has its conditions evaluated already. No rule: the constraint's default, which
// for gcp.resourceLocations allows every location. Values are a location (`us-central1`, or
// `is:us-central1`) or a value group `in:NAME-locations`. A region's own group
// (`in:us-central1-locations`) holds that region and its zones; a geography's group
// (`in:us-locations`, `in:europe-locations`) holds at least the regions named after it. Other
// groups (`in:eu-locations`, `in:low-carbon-locations`...) are Google's curated lists, which the
// job does not copy: a region they might hold is left undecided.

/** One rule of an effective list policy, as the API answers it (camelCase JSON). */
export interface LocationPolicyRule {
  readonly values?: {
    readonly allowedValues?: readonly string[];
    readonly deniedValues?: readonly string[];
  };
  readonly allowAll?: boolean;
  readonly denyAll?: boolean;
  /** A tag-based condition: the job cannot evaluate it, so such a rule decides nothing here. */
  readonly condition?: unknown;
}

/** What the policy says of the requested regions. */
export interface LocationVerdict {
  /** Regions the policy refuses, each with the value (or `denyAll`) that refuses it. */
  readonly denied: readonly { readonly location: string; readonly by: string }[];
  /** Regions only a value group the job cannot expand could allow or deny: Secret Manager decides. */
  readonly undecided: readonly string[];
}

type Match = 'yes' | 'no' | 'unknown';

/** Whether a policy value covers `region`, as far as can be known without Google's group lists. */
export function valueCovers(value: string, region: string): Match {
  const plain = value.startsWith('is:') ? value.slice(3) : value;
  if (!plain.startsWith('in:')) return plain === region ? 'yes' : 'no';
  const group = /^in:([a-z0-9-]+)-locations$/.exec(plain)?.[1];
  if (group === undefined) return 'unknown';
  // A region's own group: exactly that region (and its zones, which are not replica locations).
  if (/[0-9]$/.test(group)) return group === region ? 'yes' : 'no';
  // A geography's group holds the regions named after it; whether it holds others is Google's list.
  return region.startsWith(`${group}-`) ? 'yes' : 'unknown';
}

/** The verdict of an effective `gcp.resourceLocations` policy on each requested region. */
export function judgeLocations(
  all: readonly LocationPolicyRule[],
  regions: readonly string[],
): LocationVerdict {
  // getEffectivePolicy answers with conditions evaluated (none set); should a rule still carry
  // one, it is not judged here, and what it might refuse is left to Secret Manager.
  const rules = all.filter((rule) => rule.condition === undefined);
  const conditional = rules.length !== all.length;
  const denied: { location: string; by: string }[] = [];
  const undecided: string[] = [];
  const denyAll = rules.some((rule) => rule.denyAll === true);
  const allowAll = rules.length === 0 || rules.some((rule) => rule.allowAll === true);
  const allowedValues = rules.flatMap((rule) => rule.values?.allowedValues ?? []);
  const deniedValues = rules.flatMap((rule) => rule.values?.deniedValues ?? []);
  for (const region of regions) {
    if (denyAll) {
      denied.push({ location: region, by: 'denyAll' });
      continue;
    }
    const refusal = deniedValues.find((value) => valueCovers(value, region) === 'yes');
    if (refusal !== undefined) {
      denied.push({ location: region, by: `deniedValues ${refusal}` });
      continue;
    }
    const maybeRefused = deniedValues.some((value) => valueCovers(value, region) === 'unknown');
    // An allow list applies only when the policy has one: a rule of denied values alone allows the rest.
    const allowance: Match =
      allowAll || allowedValues.length === 0
        ? 'yes'
        : allowedValues.some((value) => valueCovers(value, region) === 'yes')
          ? 'yes'
          : allowedValues.some((value) => valueCovers(value, region) === 'unknown')
            ? 'unknown'
            : 'no';
    if (allowance === 'no')
      denied.push({ location: region, by: `allowedValues ${allowedValues.join(', ')}` });
    else if (allowance === 'unknown' || maybeRefused || conditional) undecided.push(region);
  }
  return { denied, undecided };
}
