// Issue 40, part 4: every attempt of every Secret Manager and Kubernetes call the job makes is one
// INFO entry (api, operation, status_code, duration_ms, call_attempt), written where all of the
// stores' calls pass (GoogleSecretStore.call, KubernetesClusterSecrets.call), and none carries the
// pull secret: not the bytes sent, not an error message that quotes them.
import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { KubernetesClusterSecrets } from '../../../functions/pull-secret-job/kubernetes/kubernetes-cluster-secrets';
import { GoogleSecretStore } from '../../../functions/pull-secret-job/secret-manager/google-secret-store';
import { GrpcStatus } from '../../../shared/gcp/grpc-status';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { RecordingLogger } from '../../helpers/recording-logger';

const RETRY = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };
const SECRET = 'projects/customer/secrets/hyperfleet-cls-1-pull-secret';
const canary = canaryPullSecret('api-call-entries');

/** A gRPC failure whose message quotes the payload, as a careless server might. */
const grpcError = (code: number) =>
  Object.assign(new Error(`${code} X: refused ${canary.text}`), { code, details: canary.text });

/** What the entries of one API say, in order. */
const entries = (logger: RecordingLogger, api: string) =>
  logger.lines.filter((line) => line.fields.api === api);

describe('Secret Manager calls (GoogleSecretStore)', () => {
  /** A client whose addSecretVersion fails with `failures` codes first, then answers. */
  function store(logger: RecordingLogger, failures: number[] = []) {
    const client = {
      addSecretVersion: async () => {
        const code = failures.shift();
        if (code !== undefined) throw grpcError(code);
        return [{ name: `${SECRET}/versions/7` }];
      },
      getSecret: async () => {
        throw grpcError(GrpcStatus.NOT_FOUND);
      },
    } as unknown as SecretManagerServiceClient;
    return new GoogleSecretStore(client, { timeoutMs: 1000, retry: RETRY, logger });
  }

  it('logs AddSecretVersion at INFO with its operation, status, duration and secret, never the payload', async () => {
    const logger = new RecordingLogger();
    await store(logger).addVersion(SECRET, Buffer.from(canary.text), 123);
    const [entry, ...more] = entries(logger, 'secretmanager.googleapis.com');
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      level: 'info',
      fields: {
        operation: 'AddSecretVersion',
        resource: SECRET,
        status_code: '200',
        grpc_code: 'OK',
        call_attempt: 1,
      },
    });
    expect(typeof entry!.fields.duration_ms).toBe('number');
    expect(leaks(logger.text(), [canary])).toEqual([]);
  });

  it('logs an expected answer (NOT_FOUND) as the 404 it is', async () => {
    const logger = new RecordingLogger();
    await expect(store(logger).getSecret(SECRET)).resolves.toBeUndefined();
    expect(entries(logger, 'secretmanager.googleapis.com').map((e) => e.fields)).toEqual([
      expect.objectContaining({
        operation: 'GetSecret',
        status_code: '404',
        grpc_code: 'NOT_FOUND',
      }),
    ]);
  });

  it('logs every failed attempt, and a failure that is not retried, without the error message', async () => {
    const logger = new RecordingLogger();
    // AddSecretVersion is not retried (a lost answer may have added the version): one 503, thrown.
    await expect(
      store(logger, [GrpcStatus.UNAVAILABLE]).addVersion(SECRET, Buffer.from(canary.text), 1),
    ).rejects.toThrow();
    expect(entries(logger, 'secretmanager.googleapis.com').map((e) => e.fields)).toEqual([
      expect.objectContaining({ status_code: '503', grpc_code: 'UNAVAILABLE', call_attempt: 1 }),
    ]);
    const entryText = JSON.stringify(entries(logger, 'secretmanager.googleapis.com'));
    expect(leaks(entryText, [canary])).toEqual([]);
  });
});

describe('Kubernetes calls (KubernetesClusterSecrets)', () => {
  /** An error as @kubernetes/client-node throws it, its body quoting the request. */
  const apiException = (code: number) =>
    Object.assign(new Error(`HTTP-Code: ${code}`), {
      code,
      body: JSON.stringify({ kind: 'Status', code, message: `echo ${canary.text}` }),
    });

  /** Failures first (an HTTP code, or 'hang': no answer at all), then the created Secret. */
  function secrets(logger: RecordingLogger, failures: (number | 'hang')[], timeoutMs = 1000) {
    const api = {
      createNamespacedSecret: async (request: { body: k8s.V1Secret }) => {
        const code = failures.shift();
        if (code === 'hang') return new Promise<never>(() => undefined);
        if (code !== undefined) throw apiException(code);
        return { ...request.body, metadata: { ...request.body.metadata, resourceVersion: '9' } };
      },
    } as unknown as k8s.CoreV1Api;
    return new KubernetesClusterSecrets(api, {
      timeoutMs,
      retry: RETRY,
      logger,
      identityHint: 'the job',
    });
  }
  const desired = {
    namespace: 'clusters-cls-1',
    name: 'cls-1-pull-secret',
    labels: {},
    annotations: {},
    dockerConfigJson: Buffer.from(canary.text),
  };

  it('logs each attempt: a retried 503, then the success (2xx: the client does not say which)', async () => {
    const logger = new RecordingLogger();
    await secrets(logger, [503]).create(desired);
    expect(entries(logger, 'kubernetes').map((e) => [e.level, e.fields])).toEqual([
      [
        'info',
        expect.objectContaining({
          operation: 'create-secret',
          namespace: 'clusters-cls-1',
          k8s_secret: 'cls-1-pull-secret',
          status_code: '503',
          call_attempt: 1,
          duration_ms: expect.any(Number),
        }),
      ],
      ['info', expect.objectContaining({ status_code: '2xx', call_attempt: 2 })],
    ]);
    expect(leaks(logger.text(), [canary])).toEqual([]);
  });

  it('logs a refused call with its HTTP status and no body', async () => {
    const logger = new RecordingLogger();
    await expect(secrets(logger, [403]).create(desired)).rejects.toThrow();
    expect(entries(logger, 'kubernetes').map((e) => e.fields.status_code)).toEqual(['403']);
    expect(leaks(JSON.stringify(entries(logger, 'kubernetes')), [canary])).toEqual([]);
  });

  it('logs a call our deadline ended as a timeout', async () => {
    const logger = new RecordingLogger();
    await secrets(logger, ['hang'], 20).create(desired);
    expect(entries(logger, 'kubernetes').map((e) => e.fields.status_code)).toEqual([
      'timeout',
      '2xx',
    ]);
    expect(entries(logger, 'kubernetes')[0]!.fields.duration_ms).toBeGreaterThanOrEqual(15);
  });
});
