import type { z } from 'zod';
import type { eventarcConfigSchema, TriggerInput } from '../../eventarc/rules';
import type { DeliveryMode } from './eventarc-conversion';
import { RUNTIME_GRANTS, type RuntimeIdentity } from './runtime-grants';
import {
  LOCAL_PROJECT,
  LOCAL_REGION,
  NAME_PREFIX,
  RUNTIME_IDENTITIES,
  SUBSCRIPTIONS,
  topicPath,
} from './layout';

/**
 * The Eventarc triggers Terraform's eventarc.tf creates for `delivery.mode = "eventarc"`, one per
 * route (PREFIX-adapter, PREFIX-results, PREFIX-finished, PREFIX-fleet), as the local stack's own delivery
 * wiring has them: in eventarc mode the converters stand for them; in push mode there are none.
 * Who may read them is what the shared grants give on the platform project
 * (terraform/modules/runtime-grants.json: the doctor's custom role, held by the job).
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
          const fn = route === 'adapter' || route === 'fleet' ? 'adapter' : 'reporter';
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
    grants: eventarcGrants(),
    serviceAccounts: { ...options.serviceAccounts },
    tokenInfoUrl: options.tokenInfoUrl,
  };
}

/**
 * The Eventarc permissions each identity holds on the platform project under the shared grants
 * (the Eventarc emulator checks permissions per principal email).
 */
function eventarcGrants(): Record<string, string[]> {
  const emails: Readonly<Record<RuntimeIdentity, string>> = RUNTIME_IDENTITIES;
  const grants: Record<string, string[]> = {};
  for (const grant of Object.values(RUNTIME_GRANTS.grants)) {
    if (grant.on !== 'platform-project' || grant.customRole === undefined) continue;
    const permissions = RUNTIME_GRANTS.customRoles[grant.customRole]!.filter((p) =>
      p.startsWith('eventarc.'),
    );
    for (const identity of [grant.identity].flat()) {
      if (permissions.length > 0)
        grants[emails[identity]] = [...(grants[emails[identity]] ?? []), ...permissions];
    }
  }
  return grants;
}
