import { DOCTOR_SECTION, fail, ok, skip, type CheckResult } from './check';
import type { ReadAnswer } from './read-answer';

/** The three event routes Terraform wires (eventarc.tf, pubsub.tf): trigger or subscription PREFIX-ROUTE. */
export const ROUTES = ['adapter', 'results', 'finished'] as const;
export type Route = (typeof ROUTES)[number];

/** What a trigger or a push subscription reads from, and (a subscription) where it pushes. */
export interface RouteWiring {
  readonly topic: string;
  readonly pushEndpoint?: string;
}

/** Where each route must read from: Sentinel's topic, the job's results topic, the execution-finished topic. */
export type ExpectedTopics = Readonly<Record<Route, string | undefined>>;

const SENTINEL = 'sentinel-topic';
const DELIVERY = 'delivery';

const grantFix = (permission: string, resource: string) => ({
  problem: `The job's identity may not read ${resource} (${permission}), so the doctor cannot check it.`,
  resource: `the job's service account, on ${resource}`,
  action: `Grant it ${permission}: terraform apply of the pullsecret-adapter module makes that grant (doctor.tf; ${DOCTOR_SECTION}).`,
});

/** Sentinel's topic exists (pure). */
export function judgeSentinelTopic(
  topic: string | undefined,
  answer: ReadAnswer<{ readonly name: string }> | undefined,
): CheckResult {
  if (!topic || !answer)
    return skip(
      SENTINEL,
      'no topic to check: set SENTINEL_TOPIC or GOOGLE_CLOUD_PROJECT, or pass --sentinel-topic',
    );
  switch (answer.kind) {
    case 'found':
      return ok(SENTINEL, `${topic} exists`);
    case 'missing':
      return fail(SENTINEL, `${topic} does not exist`, {
        problem: "Sentinel's topic does not exist: no reconcile event reaches the adapter.",
        resource: topic,
        action:
          'Point Terraform\'s sentinel_topic at the topic Sentinel publishes to (it must exist: the module only subscribes), or create it; docs/deployment.md, "Wiring Sentinel\'s topic".',
      });
    case 'denied':
      return skip(
        SENTINEL,
        `not readable by the job: ${answer.message}`,
        grantFix('pubsub.topics.get', topic),
      );
    case 'failed':
      return skip(SENTINEL, `could not read ${topic}: ${answer.detail}`);
  }
}

/**
 * The delivery wiring (pure): the three Eventarc triggers (delivery.mode = "eventarc"), or, when
 * none exists, the three push subscriptions (delivery.mode = "push-subscription"), each reading
 * the topic it must. A read the job may not make is a SKIP with the grant that allows it: a
 * deployment without the doctor's optional read grants is not a broken one.
 */
export function judgeDelivery(input: {
  readonly triggers: Readonly<Record<Route, ReadAnswer<RouteWiring>>>;
  /** Read only when no trigger exists. */
  readonly subscriptions?: Readonly<Record<Route, ReadAnswer<RouteWiring>>>;
  readonly triggerName: (route: Route) => string;
  readonly subscriptionName: (route: Route) => string;
  readonly expected: ExpectedTopics;
}): CheckResult {
  const { triggers, subscriptions, expected } = input;
  const denied = ROUTES.find((r) => triggers[r].kind === 'denied');
  if (denied)
    return skip(
      DELIVERY,
      `Eventarc triggers not readable by the job (${input.triggerName(denied)})`,
      grantFix('eventarc.triggers.get', `the triggers ${ROUTES.map(input.triggerName).join(', ')}`),
    );
  for (const route of ROUTES) {
    const answer = triggers[route];
    if (answer.kind === 'failed')
      return skip(
        DELIVERY,
        `could not read Eventarc trigger ${input.triggerName(route)}: ${answer.detail}`,
      );
  }
  const found = ROUTES.filter((r) => triggers[r].kind === 'found');
  if (found.length > 0)
    return judgeWiring('eventarc', triggers, input.triggerName, expected, 'trigger');
  if (!subscriptions)
    return skip(DELIVERY, 'no Eventarc trigger exists and the push subscriptions were not read');
  const subscriptionDenied = ROUTES.find((r) => subscriptions[r].kind === 'denied');
  if (subscriptionDenied)
    return skip(
      DELIVERY,
      `no Eventarc trigger exists, and the push subscriptions are not readable by the job (${input.subscriptionName(subscriptionDenied)})`,
      grantFix(
        'pubsub.subscriptions.get',
        `the subscriptions ${ROUTES.map(input.subscriptionName).join(', ')}`,
      ),
    );
  if (ROUTES.every((r) => subscriptions[r].kind === 'missing'))
    return fail(DELIVERY, 'neither the Eventarc triggers nor the push subscriptions exist', {
      problem:
        "No delivery wiring: Sentinel's events, the job's results and Cloud Run's execution-finished events reach nothing.",
      resource: `the triggers ${ROUTES.map(input.triggerName).join(', ')} (delivery.mode = "eventarc") or the subscriptions ${ROUTES.map(input.subscriptionName).join(', ')} (delivery.mode = "push-subscription")`,
      action:
        'terraform apply (eventarc.tf or pubsub.tf creates them); docs/deployment.md, "Delivery modes".',
    });
  return judgeWiring(
    'push-subscription',
    subscriptions,
    input.subscriptionName,
    expected,
    'subscription',
  );
}

function judgeWiring(
  mode: 'eventarc' | 'push-subscription',
  answers: Readonly<Record<Route, ReadAnswer<RouteWiring>>>,
  nameOf: (route: Route) => string,
  expected: ExpectedTopics,
  kind: 'trigger' | 'subscription',
): CheckResult {
  const missing = ROUTES.filter((r) => answers[r].kind === 'missing');
  if (missing.length > 0)
    return fail(DELIVERY, `${mode}: ${missing.map(nameOf).join(', ')} missing`, {
      problem: `The ${kind}${missing.length > 1 ? 's' : ''} ${missing.map(nameOf).join(', ')} of delivery.mode = "${mode}" ${missing.length > 1 ? 'do' : 'does'} not exist: ${missing.map(describeRoute).join('; ')} are not delivered.`,
      resource: missing.map(nameOf).join(', '),
      action: `terraform apply recreates ${missing.length > 1 ? 'them' : 'it'} (${mode === 'eventarc' ? 'eventarc.tf' : 'pubsub.tf'}); docs/deployment.md, "Delivery modes".`,
    });
  const problems = ROUTES.flatMap((route) => {
    const answer = answers[route];
    if (answer.kind !== 'found') return [];
    const want = expected[route];
    const wrongTopic = want !== undefined && answer.value.topic !== want;
    const noPush = kind === 'subscription' && !answer.value.pushEndpoint;
    return [
      ...(wrongTopic ? [`${nameOf(route)} reads ${answer.value.topic}, not ${want}`] : []),
      ...(noPush ? [`${nameOf(route)} has no push endpoint (detached)`] : []),
    ];
  });
  if (problems.length > 0)
    return fail(DELIVERY, `${mode}: ${problems.join('; ')}`, {
      problem: `The delivery wiring does not match the deployment: ${problems.join('; ')}.`,
      resource: ROUTES.map(nameOf).join(', '),
      action:
        'terraform apply restores them as the module declares (sentinel_topic, the results and execution-finished topics); docs/deployment.md, "Delivery modes".',
    });
  return ok(DELIVERY, `${mode}: ${ROUTES.map(nameOf).join(', ')} exist and read their topics`);
}

function describeRoute(route: Route): string {
  return route === 'adapter'
    ? "Sentinel's events to the adapter"
    : route === 'results'
      ? "the job's results to the reporter"
      : "Cloud Run's execution-finished events to the reporter";
}
