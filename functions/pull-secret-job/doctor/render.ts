import type { CheckResult } from './check';

/** The key of the doctor's last output line (a JSON object, as the job's result line). */
export const DOCTOR_RESULT_KEY = 'pullsecret_doctor_result';

/** Counts of each status. */
export function tally(results: readonly CheckResult[]): { ok: number; fail: number; skip: number } {
  return {
    ok: results.filter((r) => r.status === 'OK').length,
    fail: results.filter((r) => r.status === 'FAIL').length,
    skip: results.filter((r) => r.status === 'SKIP').length,
  };
}

/**
 * The doctor's report for a terminal or a log: a table (check, result, detail), then each failure
 * with its fix (what is wrong, which resource, what to run or read), then what would let each
 * skipped check run, then a one-line verdict. Pure: the caller prints it.
 */
export function renderReport(results: readonly CheckResult[]): string {
  const header = { name: 'CHECK', status: 'RESULT', detail: 'DETAIL' };
  const rows = [header, ...results];
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const statusWidth = Math.max(...rows.map((r) => r.status.length));
  const lines = rows.map((r) =>
    `${r.name.padEnd(nameWidth)}  ${r.status.padEnd(statusWidth)}  ${r.detail}`.trimEnd(),
  );
  const section = (title: string, status: CheckResult['status']) => {
    const withFix = results.filter((r) => r.status === status && r.fix);
    if (withFix.length === 0) return [];
    return [
      '',
      title,
      ...withFix.flatMap((r) => [
        `  [${r.status}] ${r.name}`,
        `    what:  ${r.fix!.problem}`,
        `    where: ${r.fix!.resource}`,
        `    fix:   ${r.fix!.action}`,
      ]),
    ];
  };
  const counts = tally(results);
  return [
    ...lines,
    ...section('How to fix each failure:', 'FAIL'),
    ...section('What would let each skipped check run:', 'SKIP'),
    '',
    `pull-secret doctor: ${counts.ok} OK, ${counts.fail} FAIL, ${counts.skip} SKIP: ${
      counts.fail > 0 ? 'the deployment needs the fixes above' : 'no check failed'
    }`,
    '',
  ].join('\n');
}

/** The last output line: the same results as JSON, for Cloud Logging queries and scripts. */
export function resultLine(results: readonly CheckResult[]): string {
  const counts = tally(results);
  return JSON.stringify({
    severity: counts.fail > 0 ? 'ERROR' : 'INFO',
    message: `pull-secret doctor: ${counts.ok} OK, ${counts.fail} FAIL, ${counts.skip} SKIP`,
    [DOCTOR_RESULT_KEY]: { ...counts, checks: results },
  });
}
