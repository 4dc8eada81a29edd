import { skip, type CheckResult } from './check';
import { judgeDelivery, judgeSentinelTopic, type Route } from './delivery-check';
import { perRoute, readSubscription, readTopic, readTrigger } from './delivery-probe';
import type { DoctorContext } from './doctor-context';
import { fullTopicName } from './doctor-config';
import { restBase } from './google-rest';

/** The default of Terraform's sentinel_topic, in the platform project. */
const SENTINEL_TOPIC = 'hyperfleet-system-clusters';

/** Sentinel's topic, then the triggers (or push subscriptions) of the platform project. */
export async function checkDelivery(
  context: DoctorContext,
  token: string | undefined,
): Promise<CheckResult[]> {
  const { config, args } = context;
  const project = config.platformProject;
  const topic = fullTopicName(
    args.sentinelTopic ?? config.sentinelTopic ?? SENTINEL_TOPIC,
    project,
  );
  const { PubSub } = await import('../../../shared/gcp/lazy/pubsub.js');
  const pubsub = new PubSub({
    ...(project ? { projectId: project } : {}),
    ...(config.emulators.pubsub
      ? { apiEndpoint: config.emulators.pubsub, emulatorMode: true }
      : {}),
  });
  try {
    const topicRow = judgeSentinelTopic(
      topic,
      topic ? await readTopic(pubsub, topic, config.gcpTimeoutMs) : undefined,
    );
    const region = args.region ?? context.region;
    const prefix = args.namePrefix ?? config.cloudRunJob?.replace(/-job$/, '') ?? 'pullsecret';
    if (!project || !region || !token)
      return [
        topicRow,
        skip(
          'delivery',
          `not checked: ${!project ? 'GOOGLE_CLOUD_PROJECT is not set' : !region ? 'the region is unknown (pass --region)' : 'no Google access token'}`,
        ),
      ];
    const triggerName = (route: Route) =>
      `projects/${project}/locations/${region}/triggers/${prefix}-${route}`;
    const subscriptionName = (route: Route) =>
      `projects/${project}/subscriptions/${prefix}-${route}`;
    const base = restBase('eventarc.googleapis.com', config.emulators.eventarc);
    const triggers = await perRoute((route) =>
      readTrigger({ base, name: triggerName(route), token, timeoutMs: config.gcpTimeoutMs }),
    );
    const subscriptions = Object.values(triggers).every((t) => t.kind === 'missing')
      ? await perRoute((route) =>
          readSubscription(pubsub, subscriptionName(route), config.gcpTimeoutMs),
        )
      : undefined;
    const deliveryRow = judgeDelivery({
      triggers,
      ...(subscriptions ? { subscriptions } : {}),
      triggerName,
      subscriptionName,
      expected: {
        adapter: topic,
        results: config.resultsTopic,
        finished: `projects/${project}/topics/${prefix}-execution-finished`,
      },
    });
    return [topicRow, deliveryRow];
  } finally {
    await pubsub.close();
  }
}
