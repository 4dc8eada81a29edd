import { FaultInjector, faultRuleSchema } from '../../../emulators/common/fault-injector';

describe('FaultInjector', () => {
  it('applies a rule to the next `count` requests whose key starts with `match`, in order', () => {
    const faults = new FaultInjector();
    faults.add({ match: 'RunJob', count: 2, status: 'UNAVAILABLE' });
    faults.add({ match: 'GET /api', status: 503, after: true });
    expect(faults.pending()).toBe(3);
    expect(faults.take('GetJob')).toBeUndefined();
    expect(faults.take('RunJob')).toMatchObject({ status: 'UNAVAILABLE', after: false });
    expect(faults.take('GET /api/hyperfleet/v1/clusters')).toMatchObject({
      status: 503,
      after: true,
    });
    expect(faults.take('RunJob')).toMatchObject({ status: 'UNAVAILABLE' });
    expect(faults.take('RunJob')).toBeUndefined();
    expect(faults.pending()).toBe(0);
  });

  it('a rule with a target is taken only by requests on that resource', () => {
    const faults = new FaultInjector();
    const mine = 'projects/p/secrets/hyperfleet-c1-pull-secret';
    faults.add({ match: 'GetSecret', target: mine, status: 'PERMISSION_DENIED' });
    expect(
      faults.take('GetSecret', 'projects/p/secrets/hyperfleet-c0-pull-secret'),
    ).toBeUndefined();
    expect(faults.take('GetSecret')).toBeUndefined();
    expect(faults.take('GetSecret', mine)).toMatchObject({ status: 'PERMISSION_DENIED' });
    expect(faults.pending()).toBe(0);
  });

  it('an exact rule is taken by that path only, not by the paths under it', () => {
    const faults = new FaultInjector();
    const cluster = 'GET /api/hyperfleet/v1/clusters/c1';
    faults.add({ match: cluster, exact: true, status: 404, count: 2 });
    expect(faults.take(`${cluster}/statuses`)).toBeUndefined();
    expect(faults.take(cluster)).toMatchObject({ status: 404 });
    faults.add({ match: cluster, status: 503 });
    expect(faults.take(`${cluster}/statuses`)).toMatchObject({ status: 503 });
    expect(faults.pending()).toBe(1);
  });

  it('a rule with a client is taken only by that caller, and each fault taken names its caller', () => {
    const faults = new FaultInjector();
    const cluster = 'GET /api/hyperfleet/v1/clusters/c1';
    faults.add({ match: cluster, exact: true, client: 'pullsecret-adapter', status: 503 });
    faults.add({ match: cluster, exact: true, delayMs: 50 });
    expect(faults.take(cluster, '', 'test')).toMatchObject({ delayMs: 50 });
    expect(faults.take(cluster)).toBeUndefined();
    expect(faults.take(cluster, '', 'pullsecret-adapter-2')).toBeUndefined();
    expect(faults.take(cluster, '', 'pullsecret-adapter')).toMatchObject({ status: 503 });
    expect(faults.taken()).toEqual([
      { time: expect.any(String), match: cluster, key: cluster, client: 'test', delayMs: 50 },
      {
        time: expect.any(String),
        match: cluster,
        key: cluster,
        client: 'pullsecret-adapter',
        status: 503,
      },
    ]);
    faults.clear();
    expect(faults.taken()).toEqual([]);
  });

  it('a hold rule holds each request it takes until release (or clear), however long that is', async () => {
    const faults = new FaultInjector();
    faults.add({ match: 'CreateSecret', hold: true, count: 2 });
    const order: string[] = [];
    const first = faults.take('CreateSecret')?.held?.then(() => order.push('first'));
    expect(faults.take('GetSecret')).toBeUndefined();
    expect(faults.holding()).toBe(1);
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(faults.release()).toBe(1);
    await first;
    const second = faults.take('CreateSecret')?.held?.then(() => order.push('second'));
    expect(faults.holding()).toBe(1);
    faults.clear();
    await second;
    expect(order).toEqual(['first', 'second']);
    expect(faults.holding()).toBe(0);
    expect(faults.release()).toBe(0);
  });

  it('"perform, then fail" needs a status to answer with, and says so', () => {
    const parsed = faultRuleSchema.safeParse({ match: 'RunJob', after: true, delayMs: 10 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['after'],
      message: expect.stringContaining('needs a "status"'),
    });
    expect(
      faultRuleSchema.parse({ match: 'RunJob', status: 'DEADLINE_EXCEEDED', after: true }),
    ).toMatchObject({ count: 1, after: true });
  });
});
