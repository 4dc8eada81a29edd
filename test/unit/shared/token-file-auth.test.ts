import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOKEN_FILE_MAX_AGE_MS, TokenFileAuth } from '../../../shared/hyperfleet/auth';

// Issue 29 §2: a token file as a Cloud Run secret volume presents it. Its stat says nothing
// reliable (a fresh mtime on every stat; or, rotated in place, the same length and mtime), so the
// cache is bounded in time only and a 401 drops it (refresh).
describe('TokenFileAuth', () => {
  let dir: string;
  let file: string;
  let reads: number;
  const countingRead = async (p: string) => {
    reads++;
    return fs.promises.readFile(p, 'utf8');
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'token-file-'));
    file = path.join(dir, 'token');
    fs.writeFileSync(file, 'token-aaaa\n');
    reads = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the file once per max age even when its mtime changes on every stat (a secret volume)', async () => {
    let now = 1_000_000;
    const auth = new TokenFileAuth(file, { now: () => now, readFile: countingRead });
    for (let call = 0; call < 100; call++) {
      fs.utimesSync(file, new Date(), new Date(Date.now() + call * 1000)); // a fresh mtime each time
      expect(await auth.authorization()).toBe('Bearer token-aaaa');
      now += 100; // 100 calls over 10 s
    }
    expect(reads).toBe(1);
    now += TOKEN_FILE_MAX_AGE_MS;
    await auth.authorization();
    expect(reads).toBe(2);
  });

  it('picks up a token rotated in place with the same length and mtime after the max age, or at once on refresh', async () => {
    let now = 1_000_000;
    const auth = new TokenFileAuth(file, { now: () => now, readFile: countingRead });
    const { mtime, atime } = fs.statSync(file);
    expect(await auth.authorization()).toBe('Bearer token-aaaa');
    fs.writeFileSync(file, 'token-bbbb\n'); // same length
    fs.utimesSync(file, atime, mtime); // same mtime
    expect(Math.abs(fs.statSync(file).mtimeMs - mtime.getTime())).toBeLessThan(1);
    now += TOKEN_FILE_MAX_AGE_MS - 1;
    expect(await auth.authorization()).toBe('Bearer token-aaaa'); // still cached
    auth.refresh(); // what the client does on a 401
    expect(await auth.authorization()).toBe('Bearer token-bbbb');
    fs.writeFileSync(file, 'token-cccc\n');
    fs.utimesSync(file, atime, mtime);
    now += TOKEN_FILE_MAX_AGE_MS;
    expect(await auth.authorization()).toBe('Bearer token-cccc');
    expect(reads).toBe(3);
  });

  it('refuses an empty file, naming the setting', async () => {
    fs.writeFileSync(file, '\n');
    await expect(new TokenFileAuth(file).authorization()).rejects.toThrow(
      /HYPERFLEET_API_AUTH_TOKEN_PATH: .* is empty/,
    );
  });
});
