/**
 * What the metadata server says about where the job runs: its region (`instance/region`,
 * `projects/NUMBER/regions/REGION` on Cloud Run) and its service account's email
 * (https://cloud.google.com/run/docs/container-contract#metadata-server). Undefined when there is
 * no metadata server (a run outside Google Cloud without the local stack's).
 */
export async function metadataFact(
  path: 'instance/region' | 'instance/service-accounts/default/email',
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const host = env.GCE_METADATA_HOST ?? env.GCE_METADATA_IP ?? 'metadata.google.internal';
  try {
    const answer = await fetch(`http://${host}/computeMetadata/v1/${path}`, {
      headers: { 'Metadata-Flavor': 'Google' },
      signal: AbortSignal.timeout(3000),
    });
    if (!answer.ok) return undefined;
    const text = (await answer.text()).trim();
    return path === 'instance/region' ? text.split('/').pop() || undefined : text || undefined;
  } catch {
    return undefined;
  }
}
