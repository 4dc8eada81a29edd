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
    const section = /section "([^"]+)"/.exec(run.stdout)?.[1];
    expect(section).toBeDefined();
    expect(pagesWithHeading(section!)).toHaveLength(1);
  });

  it('doctor --help prints its usage, naming its documentation section, which exists', async () => {
    const run = await runNode(JOB_CLI, ['doctor', '--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: pull-secret doctor');
    const section = /README, "([^"]+)"/.exec(run.stdout)?.[1];
    expect(section).toBe('pull-secret doctor');
    expect(pagesWithHeading(section!)).toEqual(['docs/operations.md']);
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
