import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cloudRunClients, SCRIPTED_TASK, TEST_JOB } from '../../helpers/cloud-run';
import { ROOT } from '../../helpers/run-process';
import { startTracked } from '../../helpers/tracked-processes';

describe('npm run emulators -- cloud-run', () => {
  it('starts from a job config file and runs executions for the real JobsClient', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-cli-'));
    const config = path.join(dir, 'jobs.json');
    fs.writeFileSync(
      config,
      JSON.stringify([{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], logDir: dir }]),
    );
    const emulator = await startTracked({
      command: process.execPath,
      args: [path.join(ROOT, 'dist/emulators/pullsecret/cli.js'), 'cloud-run', '--config', config],
    });
    expect(emulator.info).toMatchObject({
      name: 'cloud-run',
      endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      jobs: [TEST_JOB],
    });
    const clients = cloudRunClients(emulator.info.endpoint as string);
    const [operation] = await clients.jobs.runJob({ name: TEST_JOB });
    const name = (operation.metadata as { name: string }).name;
    let execution;
    do {
      await new Promise((r) => setTimeout(r, 50));
      [execution] = await clients.executions.getExecution({ name });
    } while (!execution.completionTime);
    expect(execution.succeededCount).toBe(1);
    expect(fs.readFileSync(path.join(dir, `${name.split('/').pop()}.log`), 'utf8')).toContain(
      '"behaviour":"succeed"',
    );
    await clients.jobs.close();
    await clients.executions.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('npm run emulators -- cloud-run --run-quota', () => {
  it("refuses RunJob over the quota with RESOURCE_EXHAUSTED, as Google's front end does", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-cli-quota-'));
    const config = path.join(dir, 'jobs.json');
    fs.writeFileSync(
      config,
      JSON.stringify([{ name: TEST_JOB, command: [process.execPath, SCRIPTED_TASK], logDir: dir }]),
    );
    const cli = path.join(ROOT, 'dist/emulators/pullsecret/cli.js');
    const emulator = await startTracked({
      command: process.execPath,
      args: [cli, 'cloud-run', '--config', config, '--run-quota', '1'],
    });
    const clients = cloudRunClients(emulator.info.endpoint as string);
    await clients.jobs.runJob({ name: TEST_JOB });
    await expect(clients.jobs.runJob({ name: TEST_JOB })).rejects.toMatchObject({ code: 8 });
    const [executions] = await clients.executions.listExecutions({ parent: TEST_JOB });
    expect(executions).toHaveLength(1);
    await clients.jobs.close();
    await clients.executions.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
