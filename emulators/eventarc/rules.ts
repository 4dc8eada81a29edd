import * as z from 'zod';

// Eventarc's read API as the doctor uses it, to read against its documentation:
// - GetTrigger: GET https://eventarc.googleapis.com/v1/{name=projects/*/locations/*/triggers/*};
//   "Authorization requires the following IAM permission on the specified resource name:
//   eventarc.triggers.get"; the body is a Trigger
//   (https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers/get).
// - ListTriggers: GET .../v1/{parent=projects/*/locations/*}/triggers, eventarc.triggers.list on
//   the parent; {"triggers": [...], "nextPageToken", "unreachable"}
//   (https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers/list).
// - A Trigger with a Pub/Sub transport (what google_eventarc_trigger in eventarc.tf creates):
//   eventFilters [{attribute: "type", value: "google.cloud.pubsub.topic.v1.messagePublished"}],
//   destination.cloudRun {service, region}, transport.pubsub {topic, subscription},
//   serviceAccount (https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers).
// - Errors are Google API errors, {"error": {"code", "message", "status"}}: 401 UNAUTHENTICATED
//   without credentials, 403 PERMISSION_DENIED without the permission (checked first, so a caller
//   without it learns nothing about the trigger), 404 NOT_FOUND for a trigger that does not exist.

export const TRIGGER_PATH = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+)\/triggers(?:\/([^/]+))?$/;

export const PUBSUB_MESSAGE_PUBLISHED = 'google.cloud.pubsub.topic.v1.messagePublished';

/** A trigger as the emulator keeps it (the stack declares one per delivery route). */
export const triggerSchema = z.object({
  name: z.string().regex(/^projects\/[^/]+\/locations\/[^/]+\/triggers\/[a-z][a-z0-9-]{0,62}$/),
  /** transport.pubsub.topic: projects/P/topics/T. */
  topic: z.string().regex(/^projects\/[^/]+\/topics\/[^/]+$/),
  /** transport.pubsub.subscription: the subscription Eventarc made for the trigger. */
  subscription: z.string().optional(),
  /** destination.cloudRun.service: the function's Cloud Run service. */
  service: z.string().min(1),
  serviceAccount: z.string().optional(),
});
export type TriggerInput = z.infer<typeof triggerSchema>;

export const eventarcConfigSchema = z.object({
  triggers: z.array(triggerSchema).default([]),
  /** IAM: principal email -> the Eventarc permissions its roles hold in the project. */
  grants: z.record(z.string(), z.array(z.string())).default({}),
  /** Service accounts by numeric unique id (a token without the email scope names only that). */
  serviceAccounts: z.record(z.string(), z.string()).default({}),
  /** Where bearer tokens are looked up (the metadata server's /tokeninfo). */
  tokenInfoUrl: z.url(),
});
export type EventarcConfig = z.output<typeof eventarcConfigSchema>;

/** A Google API error body. */
export const googleError = (code: number, status: string, message: string) => ({
  error: { code, message, status },
});

/** The Trigger resource as the REST API renders it. */
export function renderTrigger(trigger: TriggerInput, created: Date): Record<string, unknown> {
  const region = trigger.name.split('/')[3];
  return {
    name: trigger.name,
    uid: `uid-${Buffer.from(trigger.name).toString('hex').slice(-24)}`,
    createTime: created.toISOString(),
    updateTime: created.toISOString(),
    eventFilters: [{ attribute: 'type', value: PUBSUB_MESSAGE_PUBLISHED }],
    ...(trigger.serviceAccount ? { serviceAccount: trigger.serviceAccount } : {}),
    destination: { cloudRun: { service: trigger.service, region } },
    transport: {
      pubsub: {
        topic: trigger.topic,
        ...(trigger.subscription ? { subscription: trigger.subscription } : {}),
      },
    },
    etag: `"${created.getTime().toString(16)}"`,
  };
}
