import * as z from 'zod';
import type { Env } from '../../../shared/config/parse-env';
import { ConfigError, type ConfigProblem } from '../../../shared/errors';
import { CLOUD_RUN_EMULATOR_ARGV0 } from '../../../shared/gcp/cloud-run-emulator-mark';
import { readManagementClustersFile } from './management-clusters-file';

/**
 * Variables that would point the job somewhere else: where its calls go, where its Google token
 * comes from, or whom it trusts. The job definition Terraform writes sets none of them (it carries
 * MANAGEMENT_CLUSTERS_FILE with endpoint entries, HyperFleet's URL, the topic and the OTEL_* sampler), so on
 * Cloud Run one of them can only come from a RunJob override. Names match in any case: libraries
 * read several in lower case too (https_proxy, google_application_credentials).
 *
 * Not here, on purpose: what the job definition does set (MANAGEMENT_CLUSTERS_FILE or
 * MANAGEMENT_CLUSTERS, whose endpoints receive the job's Google token; HYPERFLEET_API_*,
 * RESULTS_TOPIC): the job cannot tell an override of those from its definition,
 * so the adapter's allow-list and the audit-log alert cover them (SECURITY.md, "Execution
 * overrides"). Nor NODE_OPTIONS, LD_PRELOAD and the like: Node and the loader read them before any
 * code of ours runs.
 */
const REDIRECTING: Readonly<Record<string, string>> = {
  KUBECONFIG:
    'a kubeconfig names the API server, its CA and the credentials (an exec plugin is a command the job would run); on Cloud Run the job reaches clusters through MANAGEMENT_CLUSTERS endpoint entries',
  GCE_METADATA_HOST: "where google-auth-library asks for the job's access token",
  GCE_METADATA_IP: "where google-auth-library asks for the job's access token",
  GOOGLE_APPLICATION_CREDENTIALS:
    'a credentials file instead of the metadata server: another identity, or an external account whose token URL is elsewhere',
  CLOUDSDK_CONFIG:
    "gcloud's folder, where Application Default Credentials look for a credentials file",
  GOOGLE_CLOUD_UNIVERSE_DOMAIN:
    'the domain the client libraries build every Google API endpoint (and token audience) from',
  NODE_EXTRA_CA_CERTS: 'certificate authorities Node would trust for every TLS connection',
  NODE_TLS_REJECT_UNAUTHORIZED: 'turns certificate checks off',
  GRPC_DEFAULT_SSL_ROOTS_FILE_PATH:
    'replaces the roots grpc-js trusts (Secret Manager and Pub/Sub calls)',
  HTTPS_PROXY: 'a proxy every HTTPS call would go through (gaxios, grpc-js)',
  HTTP_PROXY: 'a proxy every HTTP call would go through (gaxios, grpc-js)',
  GRPC_PROXY: 'a proxy every gRPC call would go through (grpc-js)',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    "where the execution's spans would go (Terraform leaves the default, Google's endpoint)",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    "where the execution's spans would go (Terraform leaves the default, Google's endpoint)",
};

/** A client library's emulator (SECRET_MANAGER_, PUBSUB_, ...): calls go there unauthenticated. */
const EMULATOR_HOST = /_EMULATOR_HOST$/i;
/** Another endpoint for a Google API (SECRET_MANAGER_API_ENDPOINT): the job's token would go there. */
const API_ENDPOINT = /_(API|GRPC)_ENDPOINT$/i;

const clusterEntries = z.record(z.string(), z.unknown());

/**
 * Entries in kubeconfig form of the list's JSON (MANAGEMENT_CLUSTERS, or the file
 * MANAGEMENT_CLUSTERS_FILE names, read once per process); an invalid or unreadable list is the
 * configuration's to report.
 */
function kubeconfigEntries(managementClusters: string | undefined): string[] {
  if (!managementClusters) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(managementClusters);
  } catch {
    return [];
  }
  const entries = clusterEntries.safeParse(parsed);
  if (!entries.success) return [];
  return Object.entries(entries.data)
    .filter(([, entry]) => typeof entry === 'object' && entry !== null && 'kubeconfig' in entry)
    .map(([name]) => name);
}

function fileText(file: string): string | undefined {
  const read = readManagementClustersFile(file);
  return read.ok ? read.text : undefined;
}

/** The variables of `env` that would point the job elsewhere, each with what it would redirect. */
export function redirectingVariables(env: Env): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const why = REDIRECTING[name.toUpperCase()];
    if (why) problems.push({ variable: name, problem: why });
    else if (EMULATOR_HOST.test(name))
      problems.push({
        variable: name,
        problem:
          "an emulator's address: the client would call it in cleartext, without credentials",
      });
    else if (API_ENDPOINT.test(name))
      problems.push({
        variable: name,
        problem: "another endpoint for a Google API: the job's token and calls would go there",
      });
  }
  const file = env.MANAGEMENT_CLUSTERS_FILE?.trim();
  const lists = {
    MANAGEMENT_CLUSTERS: env.MANAGEMENT_CLUSTERS,
    MANAGEMENT_CLUSTERS_FILE: file ? fileText(file) : undefined,
  };
  for (const [variable, text] of Object.entries(lists))
    for (const entry of kubeconfigEntries(text))
      problems.push({
        variable: `${variable} entry ${JSON.stringify(entry.slice(0, 80))}`,
        problem: `"kubeconfig" form: ${REDIRECTING.KUBECONFIG}`,
      });
  return problems;
}

/**
 * True on Cloud Run itself: CLOUD_RUN_JOB is set (Cloud Run sets it in every task) and the process
 * was not started by the local Cloud Run emulator, which marks its tasks' argv[0]. An override can
 * set neither the mark nor anything that stands for it (shared/gcp/cloud-run-emulator-mark.ts).
 */
export function onCloudRun(env: Env, argv0: string): boolean {
  return env.CLOUD_RUN_JOB !== undefined && argv0 !== CLOUD_RUN_EMULATOR_ARGV0;
}

/**
 * On Cloud Run, throws a ConfigError naming every variable that would point the job elsewhere,
 * before the job calls anything; elsewhere (the emulator, a direct CLI run) it does nothing.
 */
export function refuseRedirects(env: Env, argv0: string): void {
  if (!onCloudRun(env, argv0)) return;
  const problems = redirectingVariables(env);
  if (problems.length === 0) return;
  throw new ConfigError(
    `Refused on Cloud Run (CLOUD_RUN_JOB is set): ${problems.map((p) => p.variable).join(', ')} would point the pull secret job away from the services, identity and trust its job definition gives it (${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}). ` +
      'Remove them from the job and from the execution: the adapter never sets them, and a RunJob override outside its list raises an alert (SECURITY.md, "Execution overrides"). Locally, run the job through the Cloud Run emulator (npm start) or without CLOUD_RUN_JOB.',
    problems,
  );
}
