import * as k8s from '@kubernetes/client-node';
import type { KubeApiServerEmulator } from '../../emulators/kube-apiserver/server';

/** A client-node KubeConfig for the emulator, with the admin token or another one. */
export function kubeConfigFor(
  emulator: KubeApiServerEmulator,
  token = emulator.adminToken,
): k8s.KubeConfig {
  const config = new k8s.KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: emulator.endpoint,
        caData: Buffer.from(emulator.caPem).toString('base64'),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return config;
}

/** A real CoreV1Api for the emulator, with the admin token or another one. */
export function coreApi(
  emulator: KubeApiServerEmulator,
  token = emulator.adminToken,
): k8s.CoreV1Api {
  return kubeConfigFor(emulator, token).makeApiClient(k8s.CoreV1Api);
}

/** The `details` of a failure Status (422 Invalid: the causes, each with its field path). */
export interface FailureDetails {
  name?: string;
  kind?: string;
  causes?: { reason: string; message: string; field: string }[];
}

/** The HTTP status and Status reason of a failed client-node call. */
export async function failureOf(
  promise: Promise<unknown>,
): Promise<{ code: number; reason: string; message: string; details?: FailureDetails }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; body: string };
    // client-node's generated code drops the body of some answers (401): keep the code alone.
    if (typeof e.body !== 'string') return { code: e.code, reason: '', message: '' };
    const body = JSON.parse(e.body) as {
      reason: string;
      message: string;
      details?: FailureDetails;
    };
    return {
      code: e.code,
      reason: body.reason,
      message: body.message,
      ...(body.details ? { details: body.details } : {}),
    };
  }
  throw new Error('expected the call to fail');
}

export const dockerConfig = (text = '{"auths":{"quay.io":{"auth":"dTpw"}}}') => ({
  '.dockerconfigjson': Buffer.from(text).toString('base64'),
});

export { k8s };
