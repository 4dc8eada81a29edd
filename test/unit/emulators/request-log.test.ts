import { RequestLog, type RequestRecord } from '../../../emulators/common/request-log';

const request = (n: number) => ({ method: 'GET', target: `/things/${n}`, outcome: 200 });

describe('RequestLog', () => {
  it('keeps the last `capacity` requests, oldest first, and counts every request', () => {
    const log = new RequestLog(3);
    for (let n = 0; n < 10; n++) log.add(request(n));
    expect(log.list().map((r) => r.target)).toEqual(['/things/7', '/things/8', '/things/9']);
    expect(log.total).toBe(10);
  });

  it('shows every request to an observer, past the capacity, until it stops observing', () => {
    const log = new RequestLog(2);
    log.add(request(0));
    const seen: RequestRecord[] = [];
    const stop = log.observe((record) => seen.push(record));
    for (let n = 1; n <= 5; n++) log.add(request(n));
    stop();
    log.add(request(6));
    expect(seen.map((r) => r.target)).toEqual([1, 2, 3, 4, 5].map((n) => `/things/${n}`));
    expect(seen[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('clear forgets the requests and the count', () => {
    const log = new RequestLog(2);
    for (let n = 0; n < 5; n++) log.add(request(n));
    log.clear();
    expect(log.list()).toEqual([]);
    expect(log.total).toBe(0);
  });
});
