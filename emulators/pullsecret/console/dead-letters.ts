import type { Message, PubSub, Subscription } from '@google-cloud/pubsub';

/** A dead-lettered message as the console shows it: ids, attributes and a few known fields. */
export interface DeadLetterView {
  readonly topic: string;
  readonly messageId: string;
  readonly publishTime: string;
  readonly attributes: Record<string, string>;
  /** Fields of the JSON body that identify the work (never the whole body). */
  readonly summary: Record<string, string>;
}

const SUMMARY_FIELDS = ['id', 'kind', 'cluster_id', 'generation', 'outcome', 'reason', 'execution'];
const KEEP = 50;

/** The known identifying fields of a message body, if it is a JSON object. */
export function summarize(data: Buffer): Record<string, string> {
  try {
    const body = JSON.parse(data.toString('utf8')) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
    const record = body as Record<string, unknown>;
    return Object.fromEntries(
      SUMMARY_FIELDS.filter((k) => ['string', 'number'].includes(typeof record[k])).map((k) => [
        k,
        String(record[k]),
      ]),
    );
  } catch {
    return {};
  }
}

/**
 * Reads every dead-letter topic through a subscription of its own (`console-…`), so the console
 * sees what was dead-lettered without taking it from anyone else; keeps the latest 50.
 */
export class DeadLetterWatcher {
  private readonly seen: DeadLetterView[] = [];
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly pubsub: PubSub) {}

  async start(topics: readonly string[]): Promise<void> {
    for (const topicPath of topics) {
      const topic = topicPath.split('/').pop()!;
      const name = `console-${topic}`;
      const subscription = this.pubsub.subscription(name);
      const [exists] = await subscription.exists();
      if (!exists) await this.pubsub.topic(topic).createSubscription(name);
      subscription.on('message', (message: Message) => {
        this.seen.unshift({
          topic,
          messageId: message.id,
          publishTime: message.publishTime.toISOString(),
          attributes: { ...message.attributes },
          summary: summarize(message.data),
        });
        this.seen.length = Math.min(this.seen.length, KEEP);
        message.ack();
      });
      subscription.on('error', () => undefined);
      this.subscriptions.push(subscription);
    }
  }

  list(): DeadLetterView[] {
    return [...this.seen];
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.close()));
  }
}
