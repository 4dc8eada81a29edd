import fs from 'node:fs';
import path from 'node:path';
import { JOB_CLI, ROOT, runNode } from '../../helpers/run-process';

describe('pull-secret CLI help', () => {
  it.each(['--help', '-h', 'help'])('%s prints the usage on stdout and exits 0', async (flag) => {
    const run = await runNode(JOB_CLI, [flag], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('pull-secret run-job pull-secret [--dry-run]');
    expect(run.stderr).toBe('');
  });

  it('names a README section that exists under that title', async () => {
    const run = await runNode(JOB_CLI, ['--help'], {});
    const section = /section "([^"]+)"/.exec(run.stdout)?.[1];
    expect(section).toBeDefined();
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`^#+ ${section}$`, 'm'));
  });

  it('doctor --help prints its usage, naming its README section, which exists', async () => {
    const run = await runNode(JOB_CLI, ['doctor', '--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: pull-secret doctor');
    const section = /README, "([^"]+)"/.exec(run.stdout)?.[1];
    expect(section).toBe('pull-secret doctor');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`^#+ ${section}$`, 'm'));
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
