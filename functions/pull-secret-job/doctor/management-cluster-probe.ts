import * as z from 'zod';
import { ConfigError } from '../../../shared/errors';
import {
  createKubernetesApis,
  type AccessTokenSource,
  type KubernetesAccess,
} from '../kubernetes/kubernetes-access';
import { skip, type CheckResult } from './check';
import { judgeReach, type ReachAnswer } from './cluster-reach';
import {
  expectedRights,
  judgeClusterRights,
  type AccessAnswer,
  type AccessQuestion,
} from './cluster-rights';
import { fenceProbes, judgeFence, type FenceAnswer } from './fence-check';
import { kubeFailureOf } from './kube-failure';

const reviewSchema = z.object({
  status: z.object({ allowed: z.boolean(), reason: z.string().optional() }).optional(),
});

/** Bounds one call: the client has no deadline of its own. */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Checks one management cluster as the job reaches it (kubernetes-access.ts: its Google access
 * token, its MANAGEMENT_CLUSTERS entry): reach, RBAC (SelfSubjectAccessReview per question) and
 * the fence (dry-run creates it must refuse). Three rows: reach, rbac, fence.
 */
export async function probeManagementCluster(request: {
  readonly name: string;
  readonly access: KubernetesAccess;
  readonly tokenSource: AccessTokenSource;
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly identity: string;
}): Promise<CheckResult[]> {
  const { name, access, timeoutMs } = request;
  const endpoint = access.kind === 'google' ? access.endpoint : `kubeconfig ${access.path}`;
  const unreached = (why: string) => [
    skip(`cluster ${name} rbac`, `not checked: ${why}`),
    skip(`cluster ${name} fence`, `not checked: ${why}`),
  ];
  let apis;
  try {
    apis = await createKubernetesApis(
      access,
      request.tokenSource,
      `MANAGEMENT_CLUSTERS entry "${name}"`,
    );
  } catch (error) {
    const detail =
      error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    return [
      judgeReach(name, endpoint, { kind: 'config', detail }, request.identity),
      ...unreached('no client'),
    ];
  }
  const review = (q: AccessQuestion) => askReview(apis, q, timeoutMs);

  const expectations = expectedRights(request.namespace);
  let first: AccessAnswer;
  try {
    first = await review(expectations[0]!);
  } catch (error) {
    const failure = kubeFailureOf(error);
    const reach: ReachAnswer =
      failure.kind === 'http'
        ? { kind: 'http', status: failure.status, message: failure.message }
        : failure;
    return [
      judgeReach(name, endpoint, reach, request.identity),
      ...unreached('the cluster was not reached'),
    ];
  }
  const answers = [first, ...(await askInBatches(expectations.slice(1), review))];

  const probes = fenceProbes();
  const fenceAnswers = await askFence(apis, probes, timeoutMs);
  return [
    judgeReach(name, endpoint, { kind: 'answered' }, request.identity),
    judgeClusterRights(name, request.identity, expectations, answers),
    judgeFence(name, probes, fenceAnswers),
  ];
}

/** One SelfSubjectAccessReview, answered or not an answer. */
async function askReview(
  apis: KubernetesApis,
  q: AccessQuestion,
  timeoutMs: number,
): Promise<AccessAnswer> {
  const answer = await withTimeout(
    apis.authorization.createSelfSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            verb: q.verb,
            group: q.group,
            resource: q.resource,
            ...(q.subresource ? { subresource: q.subresource } : {}),
            ...(q.namespace !== undefined ? { namespace: q.namespace } : {}),
          },
        },
      },
    }),
    timeoutMs,
    'SelfSubjectAccessReview',
  );
  const parsed = reviewSchema.safeParse(answer);
  if (!parsed.success || !parsed.data.status)
    return { kind: 'failed', detail: 'an answer that is not a SelfSubjectAccessReview' };
  return {
    kind: 'answered',
    allowed: parsed.data.status.allowed,
    ...(parsed.data.status.reason ? { reason: parsed.data.status.reason } : {}),
  };
}

/** The other questions, six at a time; a question that fails is a failed answer. */
async function askInBatches(
  questions: readonly AccessQuestion[],
  review: (q: AccessQuestion) => Promise<AccessAnswer>,
): Promise<AccessAnswer[]> {
  const answers: AccessAnswer[] = [];
  for (const batch of chunks(questions, 6))
    answers.push(
      ...(await Promise.all(
        batch.map((q) =>
          review(q).catch((error: unknown): AccessAnswer => {
            const failure = kubeFailureOf(error);
            return {
              kind: 'failed',
              detail:
                failure.kind === 'http' ? `${failure.status} ${failure.message}` : failure.detail,
            };
          }),
        ),
      )),
    );
  return answers;
}

/** The fence's probes, each a dry-run create it must refuse. */
function askFence(
  apis: KubernetesApis,
  probes: ReturnType<typeof fenceProbes>,
  timeoutMs: number,
): Promise<FenceAnswer[]> {
  return Promise.all(
    probes.map(async (probe): Promise<FenceAnswer> => {
      try {
        await withTimeout(
          apis.core.createNamespacedSecret({
            namespace: probe.namespace,
            body: probe.secret,
            dryRun: 'All',
          }),
          timeoutMs,
          'dry-run create',
        );
        return { kind: 'admitted' };
      } catch (error) {
        const failure = kubeFailureOf(error);
        return failure.kind === 'http'
          ? { kind: 'refused', status: failure.status, message: failure.message }
          : { kind: 'failed', detail: failure.detail };
      }
    }),
  );
}

type KubernetesApis = Awaited<ReturnType<typeof createKubernetesApis>>;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
