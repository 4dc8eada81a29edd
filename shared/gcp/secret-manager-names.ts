import * as z from 'zod';
import { PermanentError } from '../errors';

// Secret Manager resource names, `projects/{project}/secrets/{secret}[/versions/{version}]`, where
// {project} is a project id or a project number: the service accepts either and serves the same
// secret, but answers every name with the NUMBER, whichever the request used. A recorded exchange
// with the real service: AddSecretVersion on parent `projects/oscar-go-1/secrets/74657374` answers
// `projects/685789191942/secrets/74657374/versions/3`, and AccessSecretVersion of
// `projects/oscar-go-1/.../versions/latest` answers the same number-form name
// (https://go.googlesource.com/oscar/+/d8fe18dcade6cc52cec8af7c5144c0216f7a2a1a/internal/gcp/gcpsecret/testdata/sdb.grpcrr);
// errors too: "Secret [projects/829294825753/secrets/MY_SECRETS] not found or has no versions." for
// a request by project id (https://github.com/firebase/firebase-tools/pull/3959). Google's rule
// for projects: "The project number is the canonical identifier, and the project ID is an alias"
// (AIP-2510, https://google.aip.dev/cloud/2510; the AIP also asks a service to answer the id a
// request sent, which Secret Manager, as recorded above, does not).
//
// So a name the service answers and a name the product built for the same resource can differ in
// their project segment alone. The product never compares such names as strings: the store adapter
// (functions/pull-secret-job/secret-manager/google-secret-store.ts) puts each answered name back in
// the form of the request it answers (nameAsAsked), after checking it names that request's
// resource; past that boundary every name is in the form the product wrote it (the project id it
// was configured with), and decisions compare version numbers (versionNumberOf).

/** A Secret Manager resource name split into its segments. */
export interface SecretManagerName {
  /** The project id or number, as the name writes it. */
  readonly project: string;
  readonly secret: string;
  /** The version id: a number, `latest` or an alias; absent for a secret's own name. */
  readonly version?: string;
}

const NAME = /^projects\/([^/]+)\/secrets\/([^/]+)(?:\/versions\/([^/]+))?$/;

/** A project number: digits only (a project id starts with a letter). */
const PROJECT_NUMBER = /^[0-9]+$/;

/** `projects/P/secrets/S/versions/V`: how configuration names one version (by number, alias or `latest`). */
const SECRET_VERSION_NAME = /^projects\/[^/]+\/secrets\/[^/]+\/versions\/[^/]+$/;

/** The zod schema of a configured version name (DEFAULT_PULL_SECRET_VERSION and the like). */
export const secretVersionNameSchema = z
  .string()
  .regex(SECRET_VERSION_NAME, 'must be projects/P/secrets/S/versions/V');

export const isProjectNumber = (project: string): boolean => PROJECT_NUMBER.test(project);

/** The segments of a secret or version name; undefined for anything else. */
export function parseSecretManagerName(name: string): SecretManagerName | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  return {
    project: match[1]!,
    secret: match[2]!,
    ...(match[3] !== undefined ? { version: match[3] } : {}),
  };
}

export function formatSecretManagerName(name: SecretManagerName): string {
  const secret = `projects/${name.project}/secrets/${name.secret}`;
  return name.version === undefined ? secret : `${secret}/versions/${name.version}`;
}

/** A version's number from its name; NaN for `latest`, an alias, or a name that is not a version's. */
export function versionNumberOf(name: string): number {
  const version = parseSecretManagerName(name)?.version;
  return version !== undefined && /^[0-9]+$/.test(version) ? Number(version) : Number.NaN;
}

/**
 * The name `answered` (from the service's answer to a request on `requested`), written with the
 * requested name's project: the service answers with the project number, the product names the
 * project as configured, and one form keeps its results, logs, status and comparisons consistent.
 * The version is the answer's (`latest` or an alias resolved to a number; a version of the secret
 * a request on the secret lists). Undefined when the answer is about another resource: another
 * secret, another version than the number asked for, or another project written in the same form
 * (a misrouted answer: the caller refuses it rather than act on a resource it did not ask about).
 */
export function answeredAs(requested: string, answered: string): string | undefined {
  const asked = parseSecretManagerName(requested);
  const got = parseSecretManagerName(answered);
  if (!asked || !got || asked.secret !== got.secret) return undefined;
  // Which number a project id has only the service knows, and it answered this very request: a
  // number answering a request by id (or the reverse) is taken as that project. The same form with
  // different text is two projects.
  const sameForm = isProjectNumber(asked.project) === isProjectNumber(got.project);
  if (sameForm && asked.project !== got.project) return undefined;
  const askedNumber = asked.version !== undefined && /^[0-9]+$/.test(asked.version);
  if (askedNumber && got.version !== asked.version) return undefined;
  return formatSecretManagerName({
    project: asked.project,
    secret: asked.secret,
    ...(got.version !== undefined ? { version: got.version } : {}),
  });
}

/**
 * answeredAs for an answer the caller acts on (the job's Secret Manager adapter): the name in the
 * request's form, so that results, logs, the status and the Kubernetes Secret's gcp-secret-path
 * name the project as configured; an answer about another resource is refused (PermanentError),
 * since acting on it (a destroy, a publication) could touch what was never asked for.
 */
export function nameAsAsked(operation: string, requested: string, answered: string): string {
  const name = answeredAs(requested, answered);
  if (name !== undefined) return name;
  throw new PermanentError(
    `Secret Manager answered ${operation} on ${requested} with ${answered || 'no name'}, which is not that resource; nothing was done with the answer.`,
    'UnexpectedSecretManagerAnswer',
  );
}
