import * as z from 'zod';
import { callGoogleRest, restBase } from '../doctor/google-rest';
import type { LocationPolicyRule } from './location-policy';

// The tenant project's effective gcp.resourceLocations policy, from the Org Policy API v2:
//   GET https://orgpolicy.googleapis.com/v2/projects/{project}/policies/gcp.resourceLocations:getEffectivePolicy
// (https://cloud.google.com/resource-manager/docs/reference/orgpolicy/rest/v2/projects.policies/getEffectivePolicy),
// which needs orgpolicy.policy.get on the project (roles/orgpolicy.policyViewer holds it:
// https://cloud.google.com/iam/docs/roles-permissions/orgpolicy). The job is not granted it by
// default: Secret Manager enforces the constraint itself when it creates a secret, so a policy the
// job cannot read costs only the early, clearer message (resolve-replication.ts logs that).

const CONSTRAINT = 'gcp.resourceLocations';

/** The effective Policy as far as a list constraint goes (unknown fields are ignored). */
const effectivePolicySchema = z.object({
  spec: z
    .object({
      rules: z
        .array(
          z.object({
            values: z
              .object({
                allowedValues: z.array(z.string()).optional(),
                deniedValues: z.array(z.string()).optional(),
              })
              .optional(),
            allowAll: z.boolean().optional(),
            denyAll: z.boolean().optional(),
            /** Google documents none in an effective policy; kept so a rule with one is not judged. */
            condition: z.unknown().optional(),
          }),
        )
        .default([]),
    })
    .optional(),
});

/** The policy's rules, or why they could not be read. */
export type LocationPolicyAnswer =
  | { readonly kind: 'rules'; readonly rules: readonly LocationPolicyRule[] }
  | { readonly kind: 'unreadable'; readonly why: string };

/** Reads a project's effective gcp.resourceLocations policy; never throws. */
export type LocationPolicyReader = (projectId: string) => Promise<LocationPolicyAnswer>;

/**
 * The reader over the REST API with the job's access token. `emulatorHost` (ORG_POLICY_EMULATOR_HOST)
 * is the local stack's, in cleartext. `projectId` is GCP_PROJECT_ID, checked against Google's
 * project id rule at start, so it cannot change the request's path.
 */
export function orgPolicyReader(options: {
  readonly emulatorHost?: string;
  readonly timeoutMs: number;
  readonly token: () => Promise<string>;
}): LocationPolicyReader {
  const base = restBase('orgpolicy.googleapis.com', options.emulatorHost);
  return async (projectId) => {
    let token: string;
    try {
      token = await options.token();
    } catch (error) {
      return {
        kind: 'unreadable',
        why: `no access token (${error instanceof Error ? error.message : String(error)})`,
      };
    }
    const answer = await callGoogleRest(
      {
        url: `${base}/v2/projects/${projectId}/policies/${CONSTRAINT}:getEffectivePolicy`,
        method: 'GET',
        token,
        timeoutMs: options.timeoutMs,
      },
      effectivePolicySchema,
    );
    if (answer.kind === 'ok') return { kind: 'rules', rules: answer.body.spec?.rules ?? [] };
    if (answer.kind === 'no-answer') return { kind: 'unreadable', why: answer.detail };
    return {
      kind: 'unreadable',
      why: `${answer.status ?? `HTTP ${answer.httpStatus}`}: ${answer.message}`,
    };
  };
}
