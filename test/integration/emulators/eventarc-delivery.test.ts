import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { CloudEventV1 } from 'cloudevents';
import { pushToEventarc } from '../../../emulators/pullsecret/stack/eventarc-conversion';
import {
  startRoundRobinProxy,
  type RoundRobinProxy,
} from '../../../emulators/pullsecret/stack/round-robin-proxy';
import { decodeIncomingEvent } from '../../../shared/events/decode';
import { sentinelEvent } from '../../helpers/events';

const TOPIC_PATH = '/projects/demo-hyperfleet/topics/hyperfleet-system-clusters';
const SUBSCRIPTION = 'projects/demo-hyperfleet/subscriptions/pullsecret-adapter';

/** What the Pub/Sub emulator pushes (the wrapped envelope with its snake_case twins). */
function pushBody(payload: unknown, messageId: string, publishTime: string) {
  return {
    message: {
      data: Buffer.from(JSON.stringify(payload)).toString('base64'),
      attributes: { _watermill_message_uuid: 'u-1' },
      messageId,
      message_id: messageId,
      publishTime,
      publish_time: publishTime,
    },
    subscription: SUBSCRIPTION,
    deliveryAttempt: 2,
  };
}

describe('Eventarc-style delivery: the push converter in front of functions-framework', () => {
  const received: { event: CloudEventV1<unknown> }[] = [];
  let status = 204;
  let server: Server;
  let direct: string;
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    functions.cloudEvent('eventarc-capture', (event: CloudEventV1<unknown>) => {
      received.push({ event });
      if (status >= 500) throw new Error('failing on purpose');
    });
    server = getTestServer('eventarc-capture');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    direct = `http://127.0.0.1:${port}`;
    proxy = await startRoundRobinProxy({
      targets: [{ name: 'function', port }],
      delivery: 'eventarc',
    });
  });
  afterAll(async () => {
    await proxy.close();
    server.close();
  });
  beforeEach(() => {
    received.length = 0;
    status = 204;
  });

  const post = async (base: string, body: unknown) => {
    const response = await fetch(`${base}${TOPIC_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  };

  it('converts a push into the binary-mode request Eventarc sends, without deliveryAttempt', () => {
    const body = pushBody(sentinelEvent('cls-1', 3), 'm-42', '2026-11-23T12:00:00.123Z');
    const converted = pushToEventarc(TOPIC_PATH, Buffer.from(JSON.stringify(body)));
    if (!converted.ok) throw new Error(converted.problem);
    expect(converted.request.path).toBe('/');
    expect(converted.request.headers).toEqual({
      'ce-specversion': '1.0',
      'ce-type': 'google.cloud.pubsub.topic.v1.messagePublished',
      'ce-source':
        '//pubsub.googleapis.com/projects/demo-hyperfleet/topics/hyperfleet-system-clusters',
      'ce-id': 'm-42',
      'ce-time': '2026-11-23T12:00:00.123Z',
      'content-type': 'application/json',
    });
    expect(JSON.parse(converted.request.body.toString())).toEqual({
      message: {
        data: body.message.data,
        attributes: { _watermill_message_uuid: 'u-1' },
        messageId: 'm-42',
        publishTime: '2026-11-23T12:00:00.123Z',
      },
      subscription: SUBSCRIPTION,
    });
  });

  it.each([
    [
      'a path without a topic',
      '/',
      pushBody({}, 'm', '2026-11-23T12:00:00Z'),
      /does not name a topic/,
    ],
    [
      'a body that is not a push',
      TOPIC_PATH,
      { hello: 'world' },
      /not a Pub\/Sub push envelope: message/,
    ],
    [
      'a message without a publish time',
      TOPIC_PATH,
      { message: { data: 'e30=', messageId: 'm' }, subscription: SUBSCRIPTION },
      /message.publishTime/,
    ],
  ])('refuses %s, saying why', (_what, path, body, problem) => {
    const converted = pushToEventarc(path, Buffer.from(JSON.stringify(body)));
    expect(converted.ok).toBe(false);
    expect(!converted.ok && converted.problem).toMatch(problem);
  });

  it('gives functions-framework the same CloudEvent and the same decoded Sentinel event in both modes', async () => {
    const sentinel = sentinelEvent('cls-7', 5);
    const body = pushBody(sentinel, 'm-7', '2026-11-23T12:00:00.000Z');
    expect(await post(direct, body)).toBe(204);
    expect(await post(proxy.endpoint, body)).toBe(204);
    const [push, eventarc] = received.map((r) => r.event);
    // The CloudEvent attributes the handlers read are identical.
    for (const attribute of ['id', 'type', 'source', 'specversion', 'time'] as const)
      expect({ attribute, value: eventarc![attribute] }).toEqual({
        attribute,
        value: push![attribute],
      });
    expect(eventarc!.time).toBe('2026-11-23T12:00:00.000Z');
    const message = (event: CloudEventV1<unknown>) =>
      (event.data as { message: Record<string, unknown> }).message;
    for (const field of ['data', 'attributes', 'messageId', 'publishTime'])
      expect({ field, value: message(eventarc!)[field] }).toEqual({
        field,
        value: message(push!)[field],
      });
    expect(eventarc!.data).not.toHaveProperty('deliveryAttempt');
    // And so is the Sentinel event the adapter decodes from them.
    const decodedPush = decodeIncomingEvent(push!);
    expect(decodedPush).toMatchObject({
      kind: 'cluster',
      event: { clusterId: 'cls-7', generation: 5 },
    });
    expect(decodeIncomingEvent(eventarc!)).toEqual(decodedPush);
    expect(proxy.records().at(-1)).toMatchObject({
      status: 204,
      eventarc: {
        ceId: 'm-7',
        ceSource:
          '//pubsub.googleapis.com/projects/demo-hyperfleet/topics/hyperfleet-system-clusters',
      },
    });
  });

  it("passes the function's failure status back, so Pub/Sub redelivers", async () => {
    status = 500;
    expect(
      await post(
        proxy.endpoint,
        pushBody(sentinelEvent('cls-8', 1), 'm-8', new Date().toISOString()),
      ),
    ).toBe(500);
    expect(received).toHaveLength(1);
  });

  it('answers 400 to what is not a push, and forwards nothing', async () => {
    expect(await post(proxy.endpoint, { hello: 'world' })).toBe(400);
    expect(received).toHaveLength(0);
  });
});
