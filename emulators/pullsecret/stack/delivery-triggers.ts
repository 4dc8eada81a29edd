import type { z } from 'zod';
import type { eventarcConfigSchema, TriggerInput } from '../../eventarc/rules';
import type { DeliveryMode } from './eventarc-conversion';
import {
  JOB_IDENTITY,
  LOCAL_PROJECT,
  LOCAL_REGION,
  NAME_PREFIX,
  SUBSCRIPTIONS,
  topicPath,
} from './layout';

/**
 * The Eventarc triggers Terraform's eventarc.tf creates for `delivery.mode = "eventarc"`, one per
 * route (PREFIX-adapter, PREFIX-results, PREFIX-finished), as the local stack's own delivery
 * wiring has them: in eventarc mode the converters stand for them; in push mode there are none.
 * The job may read them (eventarc.triggers.get), as terraform/modules/pullsecret-adapter/doctor.tf grants it.
 */
export function localEventarc(options: {
  readonly delivery: DeliveryMode;
  readonly tokenInfoUrl: string;
  /** The job's service account by its unique id (tokens without the email scope). */
  readonly serviceAccounts: Readonly<Record<string, string>>;
}): z.input<typeof eventarcConfigSchema> {
  const triggers: TriggerInput[] =
    options.delivery === 'eventarc'
      ? Object.entries(SUBSCRIPTIONS).map(([route, subscription]) => {
          const fn = route === 'adapter' ? 'adapter' : 'reporter';
          return {
            name: `projects/${LOCAL_PROJECT}/locations/${LOCAL_REGION}/triggers/${NAME_PREFIX}-${route}`,
            topic: topicPath(subscription.topic),
            subscription: `projects/${LOCAL_PROJECT}/subscriptions/${subscription.name}`,
            service: `${NAME_PREFIX}-${fn}`,
            serviceAccount: `${NAME_PREFIX}-trg-${fn}@${LOCAL_PROJECT}.iam.gserviceaccount.com`,
          };
        })
      : [];
  return {
    triggers,
    grants: { [JOB_IDENTITY]: ['eventarc.triggers.get'] },
    serviceAccounts: { ...options.serviceAccounts },
    tokenInfoUrl: options.tokenInfoUrl,
  };
}
