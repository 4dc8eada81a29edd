import { pagesWithHeading } from '../../helpers/docs';
import { JOB_CLI, runNode } from '../../helpers/run-process';

describe('pull-secret CLI help', () => {
  it.each(['--help', '-h', 'help'])('%s prints the usage on stdout and exits 0', async (flag) => {
    const run = await runNode(JOB_CLI, [flag], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('pull-secret run-job pull-secret [--dry-run]');
    expect(run.stderr).toBe('');
  });

  it('names a documentation section that exists under that title', async () => {
    const run = await runNode(JOB_CLI, ['--help'], {});
    const cited = /(docs\/[\w/-]+\.md), "([^"]+)"/.exec(run.stdout);
    expect(cited).not.toBeNull();
    expect(pagesWithHeading(cited![2]!)).toEqual([cited![1]]);
  });

  it('doctor --help prints its usage, naming its documentation section, which exists', async () => {
    const run = await runNode(JOB_CLI, ['doctor', '--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: pull-secret doctor');
    const cited = /(docs\/[\w/-]+\.md), "([^"]+)"/.exec(run.stdout);
    expect(cited?.[2]).toBe('pull-secret doctor');
    expect(pagesWithHeading(cited![2]!)).toEqual([cited![1]]);
  });

  it('doctor with a flag it does not know is a usage error (exit 2, on stderr)', async () => {
    const run = await runNode(JOB_CLI, ['doctor', '--bogus'], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: pull-secret doctor');
  });

  it('a wrong command is still a usage error (exit 2, on stderr)', async () => {
    const run = await runNode(JOB_CLI, ['run-job', 'pull-secret', '--bogus'], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage');
  });
});
