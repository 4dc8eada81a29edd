import { status } from '@grpc/grpc-js';
import { GrpcError } from '../../common/grpc-error';
import type { ProjectNumberOf } from '../project-numbers';
import {
  notificationMessage,
  type AnsweredSecret,
  type AnsweredVersion,
  type SecretEventType,
} from './event-message';
import type { SecretNotifier } from './pubsub-notifier';

/**
 * The identity Secret Manager publishes as: its service agent in the secret's project
 * ("service-PROJECT_NUMBER@gcp-sa-secretmanager.iam.gserviceaccount.com", which needs
 * pubsub.topics.publish on each topic: https://cloud.google.com/secret-manager/docs/event-notifications).
 */
export function serviceAgentOf(projectNumber: string): string {
  return `service-${projectNumber}@gcp-sa-secretmanager.iam.gserviceaccount.com`;
}

/**
 * Secret Manager's event notifications around the emulator's changes: before a change that sets
 * topics, the TOPIC_CONFIGURED test publish (a topic that cannot be published to refuses the
 * change); after each change of a secret with topics, one message per topic. Without a Pub/Sub
 * emulator to publish to, a secret with topics is refused (FAILED_PRECONDITION) rather than
 * changed with its notifications silently dropped.
 */
export class SecretEvents {
  constructor(
    private readonly notifier: SecretNotifier | undefined,
    private readonly projectNumber: ProjectNumberOf,
    private readonly now: () => Date,
  ) {}

  /** Before CreateSecret, or UpdateSecret with `topics` in its mask: `name` is the parent or the secret. */
  async configure(name: string, topics: readonly string[]): Promise<void> {
    if (topics.length === 0) return;
    const project = /^projects\/([^/]+)/.exec(name)?.[1] ?? '';
    await this.required().configureTopics(serviceAgentOf(this.projectNumber(project)), topics);
  }

  /** Before any other change of a secret: with topics, it needs Pub/Sub to notify. */
  guard(secret: Pick<AnsweredSecret, 'topics'>): void {
    if ((secret.topics ?? []).length > 0) this.required();
  }

  secretChanged(type: SecretEventType, secret: AnsweredSecret): void {
    this.publish(secret, () => notificationMessage(type, this.now(), { secret }));
  }

  versionChanged(type: SecretEventType, secret: AnsweredSecret, version: AnsweredVersion): void {
    this.publish(secret, () =>
      notificationMessage(type, this.now(), { secretName: secret.name, version }),
    );
  }

  /**
   * A secret deleted because its expiration passed: SECRET_DELETE too ("either because of a
   * user-initiated request or secret expiration"). Nothing to refuse here: without Pub/Sub (a
   * state file from a run that had one) the notification cannot be sent.
   */
  expired(secret: AnsweredSecret): void {
    if (this.notifier) this.secretChanged('SECRET_DELETE', secret);
  }

  /** Every publish handed over so far is done (tests wait on it, then pull). */
  idle(): Promise<void> {
    return this.notifier?.idle() ?? Promise.resolve();
  }

  private publish(secret: AnsweredSecret, message: () => ReturnType<typeof notificationMessage>) {
    const topics = (secret.topics ?? []).map((topic) => topic.name);
    if (topics.length > 0) this.required().publish(topics, message());
  }

  private required(): SecretNotifier {
    if (!this.notifier)
      throw new GrpcError(
        status.FAILED_PRECONDITION,
        'This Secret Manager emulator has no Pub/Sub to publish notifications to: start it with --pubsub HOST:PORT (or PUBSUB_EMULATOR_HOST) to use Secret.topics.',
      );
    return this.notifier;
  }
}
