/** How one check of `pull-secret doctor` came out. */
export type CheckStatus = 'OK' | 'FAIL' | 'SKIP';

/** What to do about a failed (or skipped) check: what is wrong, where, and what fixes it. */
export interface Fix {
  /** What is wrong, in one sentence. */
  readonly problem: string;
  /** The resource it is about (a project, a cluster's ClusterRole, a variable, a trigger...). */
  readonly resource: string;
  /** The command or documentation section that fixes it. */
  readonly action: string;
}

/** One row of the doctor's table. */
export interface CheckResult {
  /** Stable and short: `hyperfleet-api`, `secret-manager demo-project secrets`, `cluster mgmt-1 fence`. */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was checked and what was seen; never a token, a pull secret or an auth string. */
  readonly detail: string;
  /** Always for FAIL; for SKIP, what would let the check run. */
  readonly fix?: Fix;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'OK', detail });

export const fail = (name: string, detail: string, fix: Fix): CheckResult => ({
  name,
  status: 'FAIL',
  detail,
  fix,
});

export const skip = (name: string, detail: string, fix?: Fix): CheckResult => ({
  name,
  status: 'SKIP',
  detail,
  ...(fix ? { fix } : {}),
});

/** The doctor's section of the docs, named in fixes about the doctor's own read rights. */
export const DOCTOR_SECTION = 'docs/operations.md, "pull-secret doctor"';
