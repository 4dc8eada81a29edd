import { derivedProjectNumber } from '../common/derived-number';

/** A request's project, by id or by number, resolved to the project's number. */
export type ProjectNumberOf = (project: string) => string;

/** A project number: digits only (a project id starts with a letter). */
const PROJECT_NUMBER = /^[0-9]+$/;

/**
 * How the emulator knows every project's number, as Secret Manager does: the IAM configuration's
 * `projects` (id -> number) when it names the project, else the number the whole local stack
 * derives from the id (the metadata server's, the stack's IAM file: common/derived-number.ts), so
 * that a project nobody configured still has one number, the same on every run. A number is its
 * own project's number, configured or not. A secret keeps the number it was created under: a
 * project's number never changes in Google Cloud, so giving a configured project another number
 * later (PUT /_emulator/iam) is not followed, and leaves its secrets under the old one.
 */
export function projectNumbers(
  configured?: (project: string) => string | undefined,
): ProjectNumberOf {
  return (project) =>
    configured?.(project) ??
    (PROJECT_NUMBER.test(project) ? project : derivedProjectNumber(project));
}
