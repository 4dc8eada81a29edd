import { lazily } from '../../../shared/lazily';

describe('lazily', () => {
  it('creates once and shares the value between concurrent callers', async () => {
    let created = 0;
    const get = lazily(async () => ++created);
    expect(await Promise.all([get(), get(), get()])).toEqual([1, 1, 1]);
    expect(await get()).toBe(1);
  });

  it('forgets a failed creation so the next call tries again', async () => {
    let calls = 0;
    const get = lazily(async () => {
      calls += 1;
      if (calls === 1) throw new Error('UNAVAILABLE');
      return 'client';
    });
    await expect(get()).rejects.toThrow('UNAVAILABLE');
    expect(await get()).toBe('client');
  });
});
