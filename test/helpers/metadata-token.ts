import { metadataServerToken as fetchMetadataToken } from '../../emulators/pullsecret/stack/operator-credentials';

/** The scopes the job asks for (functions/pull-secret-job/kubernetes/kubernetes-access.ts). */
export const JOB_SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
] as const;

/**
 * A Google access token of the metadata server's service account, fetched as google-auth-library
 * fetches it on Cloud Run (both of the job's scopes by default): a test acting as the job.
 */
export const metadataServerToken = (
  metadataEndpoint: string,
  scopes: readonly string[] = JOB_SCOPES,
): Promise<string> => fetchMetadataToken(metadataEndpoint, scopes);

/** GETs an emulator's admin JSON (over HTTPS trusting `caFile` when given: the gateway's public CA). */
export async function adminJson(url: string, caFile?: string): Promise<unknown> {
  if (!url.startsWith('https:')) {
    const answer = await fetch(url);
    if (!answer.ok) throw new Error(`GET ${url}: HTTP ${answer.status}`);
    return answer.json();
  }
  const https = await import('node:https');
  const fs = await import('node:fs');
  return new Promise((resolve, reject) => {
    https
      .get(url, { ...(caFile ? { ca: fs.readFileSync(caFile) } : {}) }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(JSON.parse(text) as unknown)
            : reject(new Error(`GET ${url}: HTTP ${response.statusCode} ${text}`)),
        );
      })
      .on('error', reject);
  });
}
