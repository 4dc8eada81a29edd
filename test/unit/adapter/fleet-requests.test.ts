// The fleet-requests topic's messages (functions/adapter/flows/fleet-request-flow.ts): Secret
// Manager's notifications about the default pull secret become a rotation batch or an alert, the
// fleet command's requests a resync batch; nothing in a message is followed as a name.
import { RecordingLogger } from '../../helpers/recording-logger';
import {
  decideFleetMessage,
  fleetMessageOf,
  type FleetSettings,
} from '../../../functions/adapter/decision/fleet-message';
import { handleFleetMessage } from '../../../functions/adapter/flows/fleet-request-flow';
import {
  batchRunJobHttpRequest,
  batchTaskCount,
  batchTaskId,
} from '../../../functions/adapter/launch-queue/batch-launch';

const SECRET = 'projects/platform-project/secrets/default-pull-secret';
const settings = (defaultVersion = `${SECRET}/versions/latest`): FleetSettings => ({
  pullSecret: {
    specPath: 'spec.pullSecret.data',
    additionalSpecPath: 'spec.pullSecret.additional',
    defaultVersion,
  },
  clustersPerTask: 500,
  taskTimeoutMs: 7_200_000,
});
const notification = (eventType: string, secretId: string, version?: string) =>
  fleetMessageOf({
    attributes: {
      eventType,
      dataFormat: 'JSON_API_V1',
      secretId,
      ...(version ? { versionId: `${secretId}/versions/${version}` } : {}),
      timestamp: '2026-11-29T12:00:00Z',
    },
    data: Buffer.from('{}'),
    messageId: 'm-1',
  })!;

describe('Secret Manager notifications on the default pull secret', () => {
  it('a new version: a rotation of every cluster on the default, which reads the newest enabled version itself (the project by number, as Secret Manager names it)', () => {
    expect(
      decideFleetMessage(
        notification('SECRET_VERSION_ADD', 'projects/123456789/secrets/default-pull-secret', '8'),
        settings(),
      ),
    ).toMatchObject({
      kind: 'launch',
      batch: {
        reason: 'rotation',
        selector: { kind: 'default' },
        defaultVersion: `${SECRET}/versions/latest`,
      },
      message: expect.stringContaining('version 8 added'),
    });
  });

  it("another project's secret of the same name cannot steer the version: it is ignored, and the pinned name is always ours", () => {
    expect(
      decideFleetMessage(
        notification(
          'SECRET_VERSION_ADD',
          'projects/attacker-project/secrets/default-pull-secret',
          '1',
        ),
        settings(),
      ),
    ).toMatchObject({ kind: 'ignore' });
    expect(
      decideFleetMessage(
        notification('SECRET_VERSION_ADD', 'projects/platform-project/secrets/other', '1'),
        settings(),
      ),
    ).toMatchObject({ kind: 'ignore' });
    const hostileVersion = fleetMessageOf({
      attributes: {
        eventType: 'SECRET_VERSION_ADD',
        secretId: SECRET,
        versionId: 'projects/attacker/secrets/x/versions/1',
      },
      messageId: 'm',
    })!;
    // Nothing of the message is followed: the batch reads the configured secret's newest enabled version.
    expect(decideFleetMessage(hostileVersion, settings())).toMatchObject({
      kind: 'launch',
      batch: { defaultVersion: `${SECRET}/versions/latest` },
    });
    const notANumber = fleetMessageOf({
      attributes: {
        eventType: 'SECRET_VERSION_ADD',
        secretId: SECRET,
        versionId: `${SECRET}/versions/../../x`,
      },
      messageId: 'm',
    })!;
    expect(decideFleetMessage(notANumber, settings())).toMatchObject({ kind: 'ignore' });
  });

  it.each(['SECRET_VERSION_DISABLE', 'SECRET_VERSION_DESTROY', 'SECRET_VERSION_DESTROY_SCHEDULED'])(
    '%s of a version of `latest`: checked against the enabled versions, nothing fans out',
    (eventType) => {
      expect(decideFleetMessage(notification(eventType, SECRET, '7'), settings())).toEqual({
        kind: 'check-revocation',
        secret: SECRET,
        version: '7',
        eventType,
      });
    },
  );

  describe('a disabled version: the revoked-default alert only when it was the current default', () => {
    const handle = async (version: string, newest: () => Promise<number | undefined>) => {
      const logger = new RecordingLogger();
      const launched: string[] = [];
      await handleFleetMessage(notification('SECRET_VERSION_DISABLE', SECRET, version), {
        queue: {
          enqueue: () => Promise.reject(new Error('no launch expected')),
          enqueueBatch: (task) => {
            launched.push(task);
            return Promise.resolve('queued');
          },
          inspect: () => Promise.resolve(undefined),
          cancel: () => Promise.resolve(),
        },
        queueName: 'projects/p/locations/l/queues/q',
        countClusters: () => Promise.resolve(1),
        newestEnabledVersion: newest,
        settings: settings(),
        logger,
      });
      expect(launched).toEqual([]);
      return logger.lines.filter((l) => l.fields.event === 'default-pull-secret-revoked');
    };

    it('an older version retired after a rotation: no alert', async () => {
      expect(await handle('7', () => Promise.resolve(8))).toEqual([]);
    });

    it('the newest enabled one, or the last one: the alert, naming the secret and version', async () => {
      for (const newest of [6, undefined]) {
        const alerts = await handle('7', () => Promise.resolve(newest));
        expect(alerts).toEqual([
          expect.objectContaining({
            level: 'error',
            fields: expect.objectContaining({
              secret: SECRET,
              version: '7',
              event_type: 'SECRET_VERSION_DISABLE',
            }),
          }),
        ]);
      }
    });

    it('the versions cannot be listed: the alert (a revoked default must not go unseen)', async () => {
      expect(await handle('7', () => Promise.reject(new Error('PERMISSION_DENIED')))).toHaveLength(
        1,
      );
    });
  });

  it('a default pinned to a number: a new version rotates nothing; disabling another version is no alert', () => {
    const pinned = settings(`${SECRET}/versions/7`);
    expect(
      decideFleetMessage(notification('SECRET_VERSION_ADD', SECRET, '8'), pinned),
    ).toMatchObject({ kind: 'ignore' });
    expect(
      decideFleetMessage(notification('SECRET_VERSION_DISABLE', SECRET, '6'), pinned),
    ).toMatchObject({ kind: 'ignore' });
    expect(
      decideFleetMessage(notification('SECRET_VERSION_DISABLE', SECRET, '7'), pinned),
    ).toMatchObject({ kind: 'alert' });
  });

  it('TOPIC_CONFIGURED and the rotation reminder do nothing', () => {
    expect(fleetMessageOf({ attributes: { eventType: 'TOPIC_CONFIGURED' } })).toEqual({
      kind: 'secret-event',
      eventType: 'TOPIC_CONFIGURED',
    });
    expect(decideFleetMessage(notification('SECRET_ROTATE', SECRET), settings())).toMatchObject({
      kind: 'ignore',
    });
  });
});

describe("the fleet command's resync requests", () => {
  const request = (body: unknown, messageId = 'm-42') =>
    fleetMessageOf({
      attributes: { hyperfleetFleetRequest: 'resync' },
      data: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
      messageId,
    })!;

  it('becomes a resync batch named after the message id (a redelivery launches once)', () => {
    const action = decideFleetMessage(
      request({ kind: 'resync', selector: 'management-cluster=mgmt-2' }),
      settings(),
    );
    expect(action).toMatchObject({
      kind: 'launch',
      batch: {
        reason: 'resync',
        selector: { kind: 'management-cluster', name: 'mgmt-2' },
        key: 'm-42',
      },
    });
    if (action.kind !== 'launch') throw new Error('expected a launch');
    const again = decideFleetMessage(
      request({ kind: 'resync', selector: 'management-cluster=mgmt-2' }),
      settings(),
    );
    if (again.kind !== 'launch') throw new Error('expected a launch');
    expect(batchTaskId(again.batch)).toBe(batchTaskId(action.batch));
    const other = decideFleetMessage(
      request({ kind: 'resync', selector: 'management-cluster=mgmt-2' }, 'm-43'),
      settings(),
    );
    if (other.kind !== 'launch') throw new Error('expected a launch');
    expect(batchTaskId(other.batch)).not.toBe(batchTaskId(action.batch));
    expect(batchTaskId(action.batch)).toMatch(/^batch-resync-[0-9a-f]{16}$/);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an unknown field', { kind: 'resync', selector: 'all', extra: 1 }, /extra/],
    ['a bad selector', { kind: 'resync', selector: 'clusters=../../x' }, /not a cluster id/],
  ])('%s is acknowledged as malformed, saying why', (_what, body, problem) => {
    const message = request(body);
    expect(message).toEqual({ kind: 'malformed', problem: expect.stringMatching(problem) });
    expect(decideFleetMessage(message, settings())).toMatchObject({ kind: 'ignore' });
  });

  it('a Sentinel event (no fleet attributes) is not a fleet message', () => {
    expect(
      fleetMessageOf({ attributes: { 'ce-type': 'x' }, data: Buffer.from('{}') }),
    ).toBeUndefined();
    expect(fleetMessageOf({ data: Buffer.from('{}') })).toBeUndefined();
  });
});

describe('the batch launch', () => {
  it('takes one task per 500 clusters, at least one, at most 10,000', () => {
    expect([0, 1, 500, 501, 100_000, 10_000_000].map((n) => batchTaskCount(n, 500))).toEqual([
      1, 1, 1, 2, 200, 10_000,
    ]);
  });

  it('is RunJob with taskCount and allow-listed env overrides only: references, never secrets', () => {
    const request = batchRunJobHttpRequest(
      {
        reason: 'rotation',
        selector: { kind: 'default' },
        taskCount: 200,
        taskTimeoutSeconds: 7200,
        specPath: 'spec.pullSecret.data',
        additionalSpecPath: 'spec.pullSecret.additional',
        defaultVersion: `${SECRET}/versions/8`,
        key: 'k',
      },
      {
        jobName: 'projects/p/locations/l/jobs/j',
        endpoint: 'https://run.googleapis.com',
        serviceAccountEmail: 'launcher@p.iam.gserviceaccount.com',
      },
    );
    expect(request.url).toBe('https://run.googleapis.com/v2/projects/p/locations/l/jobs/j:run');
    const body = JSON.parse(request.body.toString()) as {
      overrides: {
        taskCount: number;
        timeout: string;
        containerOverrides: { env: { name: string; value: string }[] }[];
      };
    };
    expect(body.overrides.taskCount).toBe(200);
    expect(body.overrides.timeout).toBe('7200s');
    expect(
      Object.fromEntries(body.overrides.containerOverrides[0]!.env.map((e) => [e.name, e.value])),
    ).toEqual({
      BATCH_SELECTOR: 'default',
      BATCH_REASON: 'rotation',
      PULL_SECRET_SPEC_PATH: 'spec.pullSecret.data',
      PULL_SECRET_ADDITIONAL_SPEC_PATH: 'spec.pullSecret.additional',
      PULL_SECRET_SECRET_VERSION: `${SECRET}/versions/8`,
    });
  });
});
