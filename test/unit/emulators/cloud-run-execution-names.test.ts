import { ExecutionState } from '../../../emulators/cloud-run/execution-state';
import { jobDefinitionSchema } from '../../../emulators/cloud-run/job-definitions';

describe('Cloud Run emulator: execution names', () => {
  const job = jobDefinitionSchema.parse({
    name: 'projects/p/locations/l/jobs/pullsecret-job',
    command: ['/bin/true'],
  });

  it('names an execution JOB-xxxxx under its job', () => {
    const execution = new ExecutionState(job, {}, 60);
    expect(execution.name).toMatch(
      /^projects\/p\/locations\/l\/jobs\/pullsecret-job\/executions\/pullsecret-job-[a-z0-9]{5}$/,
    );
  });

  it('draws again while the name is taken, so two executions never share one', () => {
    const tried: string[] = [];
    const execution = new ExecutionState(job, {}, 60, (name) => {
      tried.push(name);
      return tried.length < 3;
    });
    expect(tried).toHaveLength(3);
    expect(execution.name).toBe(tried[2]);
  });
});
