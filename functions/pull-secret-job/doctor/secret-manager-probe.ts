import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import * as z from 'zod';
import { gcpProjectOf } from '../../../shared/hyperfleet/cluster-project';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { secretManagerSecretId } from '../../../shared/pull-secret/names';
import { callGoogleRest } from './google-rest';
import { answerOfGrpcError } from './read-answer';
import {
  PROJECT_EXCESS,
  PROJECT_REQUIRED,
  SECRET_EXCESS,
  SECRET_REQUIRED,
  type ProjectRightsAnswer,
  type SecretRightsAnswer,
} from './secret-manager-check';

/** How many of a project's clusters the doctor tries before saying none has a secret yet. */
const CANDIDATES_PER_PROJECT = 3;

/** Per-call options: a deadline, no client retries, and (toward an emulator) the job's token. */
export type SecretManagerCallOptions = () => Promise<{
  timeout: number;
  retry: null;
  otherArgs?: { headers: Record<string, string> };
}>;

/**
 * The project's permissions the doctor asks about, from Resource Manager:
 * POST https://cloudresourcemanager.googleapis.com/v3/projects/{id}:testIamPermissions
 * ("There are no permissions required for making this API call":
 * https://cloud.google.com/resource-manager/reference/rest/v3/projects/testIamPermissions).
 * With the job's grant (`resource.type == "cloudresourcemanager.googleapis.com/Project" || ...`)
 * the Project clause holds for the project itself, so this shows secrets.create (CreateSecret is
 * checked on the project) and says nothing about the per-secret rights, which the name clause
 * gives: those are tested on a secret (probeSecretRights).
 */
export function probeProjectRights(request: {
  readonly base: string;
  readonly project: string;
  readonly token: string;
  readonly timeoutMs: number;
}): Promise<ProjectRightsAnswer> {
  return testProjectPermissions({
    ...request,
    permissions: [...PROJECT_REQUIRED, ...PROJECT_EXCESS],
  });
}

/**
 * Which of `permissions` the job holds on a project (Resource Manager projects.testIamPermissions,
 * which any caller may ask about itself): roles granted on the project or inherited from its
 * folders and organization, whatever service they are for (gke-iam-check.ts asks container.*).
 */
export async function testProjectPermissions(request: {
  readonly base: string;
  readonly project: string;
  readonly token: string;
  readonly timeoutMs: number;
  readonly permissions: readonly string[];
}): Promise<ProjectRightsAnswer> {
  const answer = await callGoogleRest(
    {
      url: `${request.base}/v3/projects/${encodeURIComponent(request.project)}:testIamPermissions`,
      method: 'POST',
      token: request.token,
      body: { permissions: request.permissions },
      timeoutMs: request.timeoutMs,
    },
    z.object({ permissions: z.array(z.string()).default([]) }),
  );
  if (answer.kind === 'ok') return { kind: 'held', permissions: answer.body.permissions };
  if (answer.kind === 'no-answer') return { kind: 'failed', detail: answer.detail };
  if (
    answer.reason === 'SERVICE_DISABLED' ||
    /has not been used in project|is disabled/.test(answer.message)
  )
    return { kind: 'api-off', message: answer.message };
  if (answer.status === 'PERMISSION_DENIED') return { kind: 'no-access', message: answer.message };
  return {
    kind: 'failed',
    detail: `${answer.httpStatus} ${answer.status ?? ''}: ${answer.message}`,
  };
}

/**
 * The clusters whose secret to test on in a project: `--cluster` first, then the project's own
 * (those not being deleted first), as the HyperFleet API lists them.
 */
export function candidateClusters(
  project: string,
  clusters: readonly Cluster[] | undefined,
  named: readonly string[],
): string[] {
  const own = (clusters ?? [])
    .filter((c) => gcpProjectOf(c) === project)
    .sort((a, b) => Number(Boolean(a.deleted_time)) - Number(Boolean(b.deleted_time)))
    .map((c) => c.id);
  return [...new Set([...named, ...own])].slice(0, named.length + CANDIDATES_PER_PROJECT);
}

/**
 * The per-secret rights, on an existing hyperfleet-* secret: GetSecret first (NOT_FOUND proves
 * secrets.get is granted there but leaves nothing to test: "If the secret does not exist,
 * [TestIamPermissions] returns an empty set of permissions, not a NOT_FOUND error",
 * https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/testIamPermissions),
 * then TestIamPermissions on it, where IAM evaluates the binding's condition with the secret's own
 * name: what the job's calls on it get.
 */
export async function probeSecretRights(request: {
  readonly client: SecretManagerServiceClient;
  readonly project: string;
  readonly candidates: readonly string[];
  readonly callOptions: SecretManagerCallOptions;
  readonly why: string;
}): Promise<SecretRightsAnswer> {
  if (request.candidates.length === 0) return { kind: 'no-clusters', why: request.why };
  const tried: string[] = [];
  for (const clusterId of request.candidates) {
    const secret = `projects/${request.project}/secrets/${secretManagerSecretId(clusterId)}`;
    tried.push(secret.split('/').pop()!);
    try {
      await request.client.getSecret({ name: secret }, await request.callOptions());
    } catch (error) {
      const answer = answerOfGrpcError(error);
      if (answer.kind === 'missing') continue;
      if (answer.kind === 'denied') return { kind: 'denied', secret, message: answer.message };
      return {
        kind: 'failed',
        detail: answer.kind === 'failed' ? answer.detail : 'GetSecret failed',
      };
    }
    try {
      const [answer] = await request.client.testIamPermissions(
        { resource: secret, permissions: [...SECRET_REQUIRED, ...SECRET_EXCESS] },
        await request.callOptions(),
      );
      return { kind: 'tested', secret, held: answer.permissions ?? [] };
    } catch (error) {
      const answer = answerOfGrpcError(error);
      return {
        kind: 'failed',
        detail: `TestIamPermissions on ${secret}: ${answer.kind === 'failed' ? answer.detail : answer.kind}`,
      };
    }
  }
  return { kind: 'none-exists', tried };
}
