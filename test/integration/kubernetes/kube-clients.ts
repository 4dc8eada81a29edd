import type http from 'node:http';
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { KubeApiServerEmulator } from '../../../emulators/kube-apiserver/server';
import { kubeConfigFor } from '../../helpers/kubernetes';

export { kubeConfigFor };

/** The API clients the custom resource and admission tests use. */
export function apisFor(emulator: KubeApiServerEmulator, token = emulator.adminToken) {
  const config = kubeConfigFor(emulator, token);
  return {
    config,
    core: config.makeApiClient(k8s.CoreV1Api),
    extensions: config.makeApiClient(k8s.ApiextensionsV1Api),
    custom: config.makeApiClient(k8s.CustomObjectsApi),
    admission: config.makeApiClient(k8s.AdmissionregistrationV1Api),
  };
}

/** A raw request with a token (discovery documents, status codes client-node hides). */
export function request(
  emulator: KubeApiServerEmulator,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; contentType?: string } = {},
): Promise<{ status: number; body: unknown; headers: http.IncomingHttpHeaders }> {
  const url = new URL(path, emulator.endpoint);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        ca: emulator.caPem,
        headers: {
          authorization: `Bearer ${options.token ?? emulator.adminToken}`,
          ...(payload ? { 'content-type': options.contentType ?? 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
            headers: res.headers,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
