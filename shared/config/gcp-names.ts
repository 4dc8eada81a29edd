import * as z from 'zod';

/** GCP project ids: 6-30 characters, lowercase letters, digits and hyphens, starting with a letter. */
export const gcpProjectId = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
    'must be a GCP project id: 6-30 lowercase letters, digits or hyphens, starting with a letter',
  );

/**
 * HyperFleet cluster ids become a label value, part of a Secret Manager secret id and of a
 * Kubernetes Secret name, so they must satisfy all three: a DNS label.
 */
export const clusterId = z
  .string()
  .regex(
    /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be 1-63 lowercase letters, digits or hyphens, starting and ending with a letter or digit (it is used in labels and resource names)',
  );

/** A Kubernetes namespace name (DNS label). */
export const namespaceName = z
  .string()
  .regex(
    /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be a Kubernetes namespace name: a DNS label of at most 63 lowercase letters, digits or hyphens',
  );

/** A Kubernetes object name (DNS subdomain). */
export const objectName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(
    /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/,
    'must be a Kubernetes object name: lowercase letters, digits, "-" or "."',
  );

/** A Secret Manager secret id. */
export const secretId = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{1,255}$/,
    'must be a Secret Manager secret id: 1-255 letters, digits, "_" or "-"',
  );

/** `host:port` of an emulator. */
export const hostPort = z
  .string()
  .regex(/^[^\s:]+:\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:8085');

/**
 * `host[:port]` of a Google API endpoint other than the default, called over TLS with the
 * component's own credentials: a regional endpoint (`secretmanager.europe-west1.rep.googleapis.com`)
 * or, locally, the stack's emulators.
 */
export const apiEndpoint = z
  .string()
  .regex(
    /^[A-Za-z0-9.-]+(:\d{1,5})?$/,
    'must be host or host:port, e.g. secretmanager.europe-west1.rep.googleapis.com',
  );
