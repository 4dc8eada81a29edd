import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { parseManagementClusters, type ManagementClusterSet } from './management-clusters';

/**
 * The largest file read. 1,000 management clusters with their CAs (base64, as GKE gives them)
 * take about 2.2 MB (docs/management-clusters.md, "Sizing"); the cap leaves seven times that and
 * keeps a wrong path (a device, a log) from being read whole.
 */
export const MANAGEMENT_CLUSTERS_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** The file's text, or what kept it from being read (names the path, never the content). */
export type ManagementClustersFileRead =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

const WHAT_TO_DO =
  "mount the management clusters' JSON there (Terraform mounts its Cloud Storage object read-only, docs/management-clusters.md), or unset MANAGEMENT_CLUSTERS_FILE and give the list inline as MANAGEMENT_CLUSTERS";

/**
 * Read once per process: the run's redirect guard and its configuration both need the list, and
 * the file is a Cloud Storage object behind a FUSE mount (each read is a request). A new version
 * of the object reaches the next execution, which is a new process.
 */
const reads = new Map<string, ManagementClustersFileRead>();

/** MANAGEMENT_CLUSTERS_FILE's content, read at most once per path in this process. */
export function readManagementClustersFile(file: string): ManagementClustersFileRead {
  let read = reads.get(file);
  if (!read) {
    read = readOnce(file);
    reads.set(file, read);
  }
  return read;
}

function readOnce(file: string): ManagementClustersFileRead {
  if (!path.isAbsolute(file))
    return {
      ok: false,
      problem: `must be the absolute path of a JSON file (got a relative path, which would depend on the working directory); ${WHAT_TO_DO}`,
    };
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile())
      return { ok: false, problem: `${file} is not a regular file; ${WHAT_TO_DO}` };
    if (stat.size > MANAGEMENT_CLUSTERS_FILE_MAX_BYTES)
      return {
        ok: false,
        problem: `${file} is ${stat.size} bytes, more than the ${MANAGEMENT_CLUSTERS_FILE_MAX_BYTES} a list of management clusters can take (1,000 clusters with CAs are about 2.2 MB): is it the right file?`,
      };
    return { ok: true, text: fs.readFileSync(file, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return { ok: false, problem: `there is no file at ${file}; ${WHAT_TO_DO}` };
    if (code === 'EACCES' || code === 'EPERM')
      return {
        ok: false,
        problem: `${file} cannot be read (permission denied): on Cloud Run the job's service account needs roles/storage.objectViewer on the bucket mounted there (Terraform grants it); locally, make the file readable by the job`,
      };
    return {
      ok: false,
      problem: `${file} cannot be read (${code ?? 'unknown error'}); ${WHAT_TO_DO}`,
    };
  }
}

/**
 * `MANAGEMENT_CLUSTERS_FILE`: the path of a JSON file with MANAGEMENT_CLUSTERS' schema and rules,
 * for fleets whose list outgrows an environment variable (Cloud Run caps one at 32 KiB, about
 * 15-20 GKE clusters with their CAs). Each problem names the file, then the entry and field.
 */
export const managementClustersFile = z.string().transform((file, ctx): ManagementClusterSet => {
  const read = readManagementClustersFile(file);
  if (!read.ok) {
    ctx.addIssue({ code: 'custom', message: read.problem });
    return z.NEVER;
  }
  const result = parseManagementClusters(read.text);
  if (result.ok) return result.clusters;
  for (const message of result.problems)
    ctx.addIssue({
      code: 'custom',
      message: `${file}: ${message} (fix the file; the job reads it again at its next execution)`,
    });
  return z.NEVER;
});
