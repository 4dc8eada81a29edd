// The Eventarc emulator's read API, each rule against the documentation (emulators/eventarc/rules.ts):
// GetTrigger https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers/get
// (eventarc.triggers.get on the trigger), ListTriggers .../projects.locations.triggers/list
// (eventarc.triggers.list on the location), Google's JSON error shape, 401/403/404.
import { startEventarcEmulator, type EventarcEmulator } from '../../../emulators/eventarc/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import { metadataServerToken } from '../../helpers/metadata-token';

const JOB = 'pullsecret-job@platform-project.iam.gserviceaccount.com';
const PARENT = 'projects/platform-project/locations/us-central1';
const ADAPTER = `${PARENT}/triggers/pullsecret-adapter`;

describe('Eventarc emulator: GetTrigger and ListTriggers as Eventarc answers them', () => {
  let metadata: MetadataServerEmulator;
  let eventarc: EventarcEmulator;
  let token: string;
  const get = (path: string, bearer: string | null = token) =>
    fetch(`${eventarc.endpoint}/v1/${path}`, {
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    });

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: JOB });
    token = await metadataServerToken(metadata.endpoint);
  });
  afterAll(() => metadata.stop());
  beforeEach(async () => {
    eventarc = await startEventarcEmulator({
      config: {
        tokenInfoUrl: metadata.tokenInfoUrl,
        grants: { [JOB]: ['eventarc.triggers.get'] },
        triggers: [
          {
            name: ADAPTER,
            topic: 'projects/platform-project/topics/hyperfleet-system-clusters',
            subscription: 'projects/platform-project/subscriptions/pullsecret-adapter',
            service: 'pullsecret-adapter',
          },
        ],
      },
    });
  });
  afterEach(() => eventarc.stop());

  it('GetTrigger answers the Trigger resource: Pub/Sub transport, Cloud Run destination, event filter', async () => {
    const answer = await get(ADAPTER);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      name: ADAPTER,
      eventFilters: [{ attribute: 'type', value: 'google.cloud.pubsub.topic.v1.messagePublished' }],
      destination: { cloudRun: { service: 'pullsecret-adapter', region: 'us-central1' } },
      transport: {
        pubsub: {
          topic: 'projects/platform-project/topics/hyperfleet-system-clusters',
          subscription: 'projects/platform-project/subscriptions/pullsecret-adapter',
        },
      },
    });
  });

  it('a trigger that does not exist is 404 NOT_FOUND in Google’s error shape', async () => {
    const answer = await get(`${PARENT}/triggers/pullsecret-results`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({
      error: {
        code: 404,
        message: `Resource '${PARENT}/triggers/pullsecret-results' was not found`,
        status: 'NOT_FOUND',
      },
    });
  });

  it('without the permission: 403 PERMISSION_DENIED, whether or not the trigger exists; without a token: 401', async () => {
    const list = await get(`${PARENT}/triggers`);
    expect(list.status).toBe(403);
    expect(await list.json()).toEqual({
      error: {
        code: 403,
        message: `Permission 'eventarc.triggers.list' denied on '${PARENT}'`,
        status: 'PERMISSION_DENIED',
      },
    });
    await fetch(`${eventarc.endpoint}/_emulator/grants`, { method: 'PUT', body: '{}' });
    for (const name of [ADAPTER, `${PARENT}/triggers/none`]) {
      const denied = await get(name);
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { error: { status: string } }).error.status).toBe(
        'PERMISSION_DENIED',
      );
    }
    const anonymous = await get(ADAPTER, null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { status: string } }).error.status).toBe(
      'UNAUTHENTICATED',
    );
    expect((await get(ADAPTER, 'ya29.unknown')).status).toBe(401);
  });

  it('ListTriggers lists the location’s triggers; the admin API removes and adds one', async () => {
    await fetch(`${eventarc.endpoint}/_emulator/grants`, {
      method: 'PUT',
      body: JSON.stringify({ [JOB]: ['eventarc.triggers.get', 'eventarc.triggers.list'] }),
    });
    const names = async () =>
      (
        ((await (await get(`${PARENT}/triggers`)).json()) as { triggers?: { name: string }[] })
          .triggers ?? []
      ).map((t) => t.name);
    expect(await names()).toEqual([ADAPTER]);
    expect(
      (
        await fetch(`${eventarc.endpoint}/_emulator/triggers/pullsecret-adapter`, {
          method: 'DELETE',
        })
      ).status,
    ).toBe(200);
    expect(await names()).toEqual([]);
    expect((await get(ADAPTER)).status).toBe(404);
    await fetch(`${eventarc.endpoint}/_emulator/triggers`, {
      method: 'POST',
      body: JSON.stringify({
        name: ADAPTER,
        topic: 'projects/platform-project/topics/hyperfleet-system-clusters',
        service: 'pullsecret-adapter',
      }),
    });
    expect(await names()).toEqual([ADAPTER]);
  });
});
