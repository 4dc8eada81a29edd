// The doctor's table, fixes and result line, and its flags.
import { fail, ok, skip } from '../../../functions/pull-secret-job/doctor/check';
import {
  DoctorUsageError,
  parseDoctorArgs,
} from '../../../functions/pull-secret-job/doctor/doctor-args';
import {
  DOCTOR_RESULT_KEY,
  renderReport,
  resultLine,
} from '../../../functions/pull-secret-job/doctor/render';

const results = [
  ok('hyperfleet-api', 'answered'),
  fail('cluster mgmt-1 fence', 'a dry-run create was admitted', {
    problem: 'The fence does not stop the job.',
    resource: 'ValidatingAdmissionPolicyBinding hyperfleet-pullsecret-fence in mgmt-1',
    action: 'terraform output -raw management_cluster_fence | kubectl apply -f -',
  }),
  skip('delivery', 'Eventarc triggers not readable by the job', {
    problem: 'cannot read',
    resource: 'the triggers',
    action: 'Grant eventarc.triggers.get',
  }),
  skip('default-pull-secret', 'not configured'),
];

describe("the doctor's report", () => {
  it('is a table with aligned columns, then each failure with what, where and the fix, then the verdict', () => {
    expect(renderReport(results).split('\n')).toEqual([
      'CHECK                 RESULT  DETAIL',
      'hyperfleet-api        OK      answered',
      'cluster mgmt-1 fence  FAIL    a dry-run create was admitted',
      'delivery              SKIP    Eventarc triggers not readable by the job',
      'default-pull-secret   SKIP    not configured',
      '',
      'How to fix each failure:',
      '  [FAIL] cluster mgmt-1 fence',
      '    what:  The fence does not stop the job.',
      '    where: ValidatingAdmissionPolicyBinding hyperfleet-pullsecret-fence in mgmt-1',
      '    fix:   terraform output -raw management_cluster_fence | kubectl apply -f -',
      '',
      'What would let each skipped check run:',
      '  [SKIP] delivery',
      '    what:  cannot read',
      '    where: the triggers',
      '    fix:   Grant eventarc.triggers.get',
      '',
      'pull-secret doctor: 1 OK, 1 FAIL, 2 SKIP: the deployment needs the fixes above',
      '',
    ]);
  });

  it('says no check failed when none did, and the result line carries every row as JSON', () => {
    expect(renderReport([ok('a', 'fine')])).toContain(
      'pull-secret doctor: 1 OK, 0 FAIL, 0 SKIP: no check failed',
    );
    const line = JSON.parse(resultLine(results)) as Record<string, unknown>;
    expect(line.severity).toBe('ERROR');
    expect(line[DOCTOR_RESULT_KEY]).toEqual({ ok: 1, fail: 1, skip: 2, checks: results });
    expect((JSON.parse(resultLine([ok('a', 'fine')])) as { severity: string }).severity).toBe(
      'INFO',
    );
  });
});

describe("the doctor's flags", () => {
  it('defaults, and repeatable --project and --cluster', () => {
    expect(parseDoctorArgs([])).toEqual({
      projects: [],
      allProjects: false,
      clusters: [],
      managementProjects: [],
      help: false,
    });
    expect(
      parseDoctorArgs([
        '--project',
        'cust-one',
        '--project',
        'cust-two',
        '--cluster',
        'c1',
        '--region',
        'europe-west1',
        '--management-project',
        'mgmt-project-1',
        '--management-project',
        '123456789012',
      ]),
    ).toMatchObject({
      projects: ['cust-one', 'cust-two'],
      clusters: ['c1'],
      region: 'europe-west1',
      managementProjects: ['mgmt-project-1', '123456789012'],
    });
  });

  it.each([
    [['--project', 'Not_A_Project']],
    [['--all-projects', '--project', 'cust-one']],
    [['--region', 'moon']],
    [['--name-prefix', '-bad']],
    [['--management-project', 'Not_A_Project']],
    [['--unknown']],
    [['positional']],
  ])('refuses %j', (argv) => {
    expect(() => parseDoctorArgs(argv)).toThrow(DoctorUsageError);
  });
});
