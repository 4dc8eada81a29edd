// `pull-secret doctor` reads the platform default as the job does: `latest` is the newest ENABLED
// version (ListSecretVersions, then that number), so a disabled newest version is no failure for
// the doctor either; with no enabled version at all it says so.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { probeDefaultPullSecret } from '../../../functions/pull-secret-job/doctor/default-pull-secret-check';
import { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { pullSecretFingerprint } from '../../../shared/pull-secret/fingerprint';
import { samplePullSecret } from '../../helpers/job';
import { secretManagerClient } from '../../helpers/secret-manager';

const SECRET = 'projects/demo-platform/secrets/default-pull-secret';

describe('doctor: the platform default read as the job reads it', () => {
  let sm: SecretManagerEmulator;
  let client: SecretManagerServiceClient;
  const probe = () =>
    probeDefaultPullSecret({
      client,
      version: `${SECRET}/versions/latest`,
      callOptions: () => Promise.resolve({ timeout: 5_000, retry: null }),
      redactor: new SecretRedactor(),
    });

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    client = secretManagerClient(sm.endpoint);
    await client.createSecret({
      parent: 'projects/demo-platform',
      secretId: 'default-pull-secret',
      secret: { replication: { automatic: {} } },
    });
  });
  afterAll(async () => {
    await client.close();
    await sm.stop();
  });

  it('reads the newest enabled version when the newest one is disabled; says when none is enabled', async () => {
    const first = samplePullSecret('platform-user-1', 'password-1');
    const [v1] = await client.addSecretVersion({
      parent: SECRET,
      payload: { data: Buffer.from(first) },
    });
    const [v2] = await client.addSecretVersion({
      parent: SECRET,
      payload: { data: Buffer.from(samplePullSecret('platform-user-2', 'password-2')) },
    });
    await client.disableSecretVersion({ name: v2.name });
    expect(await probe()).toEqual({
      kind: 'valid',
      registries: Object.keys((JSON.parse(first) as { auths: object }).auths).length,
      fingerprint: pullSecretFingerprint(Buffer.from(first)),
    });
    await client.disableSecretVersion({ name: v1.name });
    expect(await probe()).toEqual({ kind: 'missing', message: 'no enabled version' });
  });
});
