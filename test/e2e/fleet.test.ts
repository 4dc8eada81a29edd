// `npm run -s fleet -- pause|resume|report` against the local stack, as its operator: a paused
// launch queue holds a new generation's launch (the status says JobQueued, the adapter's checks
// past LAUNCH_CHECK_AFTER wait, no execution starts, nothing fails) until `fleet resume`, after
// which the cluster converges; the adapter's own identity cannot pause the queue; `fleet report
// --json` lists every cluster with its state and fingerprint prefix, and exits 1 for a cluster
// failing permanently (a forged placement namespace).
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as z from 'zod';
import { CloudTasksClient } from '@google-cloud/tasks';
import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { ADAPTER_IDENTITY, OPERATOR_IDENTITY } from '../../emulators/pullsecret/stack/layout';
import {
  metadataServerToken,
  tokenClientOptions,
} from '../../emulators/pullsecret/stack/operator-credentials';
import { pullSecretFingerprint } from '../../shared/pull-secret/fingerprint';
import { sleep } from '../../shared/sleep';
import { canaryPullSecret } from '../helpers/canary';
import { ROOT, runNode } from '../helpers/run-process';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

jest.setTimeout(120_000);

const SCRIPT = path.join(ROOT, 'dist/emulators/pullsecret/stack/fleet.js');

/** The part of `fleet report --json` this test relies on, strictly where it matters. */
const reportSchema = z.object({
  schema_version: z.literal(1),
  launch_queue: z.object({ name: z.string(), state: z.string() }),
  clusters: z.array(
    z.object({
      id: z.string(),
      generation: z.number().int(),
      state: z.string(),
      health: z.object({ status: z.string(), reason: z.string().optional() }).optional(),
      pull_secret_source: z.string().optional(),
      pull_secret_sha256_prefix: z
        .string()
        .regex(/^[0-9a-f]{12}$/)
        .optional(),
      management_cluster: z.string().optional(),
      permanent_failure: z.boolean(),
      not_converged: z.boolean(),
    }),
  ),
  summary: z.object({
    total: z.number().int(),
    by_state: z.record(z.string(), z.number().int()),
    permanent_failures: z.array(z.string()),
  }),
  exit_code: z.union([z.literal(0), z.literal(1)]),
});

describe('npm run fleet on the local stack', () => {
  let stack: TestStack;
  let stackFile: string;
  const first = canaryPullSecret('fleet-a');
  const second = canaryPullSecret('fleet-a-rotated');
  const other = canaryPullSecret('fleet-b');
  let a: string;
  let b: string;
  const fleet = (...args: string[]) => runNode(SCRIPT, [...args, '--stack', stackFile], {});
  const report = async () => {
    const run = await fleet('report', '--json');
    return { code: run.code, report: reportSchema.parse(JSON.parse(run.stdout)) };
  };
  const rowOf = (r: z.infer<typeof reportSchema>, id: string) =>
    r.clusters.find((c) => c.id === id)!;

  beforeAll(async () => {
    // The adapter looks a queued launch up after 2 s (30 s in production): the pause below outlasts
    // it several times, so the long-pause path (GetTask: still queued, wait) is what runs.
    stack = await startTestStack({ adapterEnv: { LAUNCH_CHECK_AFTER: '2s' } });
    stackFile = path.join(stack.d.workDir, 'fleet-stack.json');
    fs.writeFileSync(stackFile, JSON.stringify(stack.d), { mode: 0o600 });
    [a, b] = await Promise.all([
      stack.createCluster('fleet-a', first.text),
      stack.createCluster('fleet-b', other.text),
    ]);
    await Promise.all([stack.converged(a!), stack.converged(b!)]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('pause holds a new generation in the queue (JobQueued, no execution, nothing failed); resume releases it and it converges', async () => {
    const paused = await fleet('pause');
    // Every launch queue: the fleet's and each management cluster's.
    expect({ code: paused.code, stdout: paused.stdout.trim() }).toEqual({
      code: 0,
      stdout: [
        stack.d.launchQueue,
        `${stack.d.launchQueue}-mgmt-1`,
        `${stack.d.launchQueue}-mgmt-2`,
      ]
        .map((q) => `launch queue ${q}: PAUSED`)
        .join('\n'),
    });
    expect(paused.stderr).toContain(`as ${OPERATOR_IDENTITY}`);
    try {
      const before = (await stack.executionsFor(a)).length;
      const { generation } = await stack.api.patchCluster(a, {
        spec: demoClusterSpec(second.text, CUSTOMER_PROJECT),
      });
      await stack.waitFor(`cluster ${a} JobQueued at generation ${generation}`, async () => {
        const own = await stack.own(a);
        return own?.observedGeneration === generation && own.appliedReason === 'JobQueued';
      });
      // Held: several of the adapter's in-flight checks come and go, nothing starts or fails.
      await sleep(8_000);
      expect((await stack.executionsFor(a)).length).toBe(before);
      const own = await stack.own(a);
      expect({
        generation: own?.observedGeneration,
        applied: own?.appliedReason,
        health: own?.health,
      }).toEqual({
        generation,
        applied: 'JobQueued',
        health: 'True',
      });
      expect(stack.logText()).toContain(
        'not dispatched yet (launch rate, backlog, or a paused queue)',
      );
      const held = await report();
      expect(held.report.launch_queue).toEqual({ name: stack.d.launchQueue, state: 'PAUSED' });
      expect(rowOf(held.report, a)).toMatchObject({
        state: 'queued',
        generation,
        not_converged: false,
      });
      expect(held.code).toBe(0);
    } finally {
      const resumed = await fleet('resume');
      expect({ code: resumed.code, stdout: resumed.stdout.trim() }).toEqual({
        code: 0,
        stdout: [
          stack.d.launchQueue,
          `${stack.d.launchQueue}-mgmt-1`,
          `${stack.d.launchQueue}-mgmt-2`,
        ]
          .map((q) => `launch queue ${q}: RUNNING`)
          .join('\n'),
      });
    }
    await stack.converged(a, undefined, 30_000);
    const { report: after, code } = await report();
    expect(code).toBe(0);
    expect(after.launch_queue.state).toBe('RUNNING');
    expect(rowOf(after, a)).toMatchObject({
      state: 'converged',
      pull_secret_source: 'cluster-spec',
      pull_secret_sha256_prefix: pullSecretFingerprint(second.text),
    });
    expect(rowOf(after, b).pull_secret_sha256_prefix).toBe(pullSecretFingerprint(other.text));
    // Prefix only: nothing of the secrets themselves in the report.
    const text = (await fleet('report')).stdout;
    for (const canary of [first, second, other]) expect(text).not.toContain(canary.text);
    expect(text).toContain(pullSecretFingerprint(second.text));
  });

  it("the adapter's identity cannot pause the launch queue (only the operator's grant can)", async () => {
    const host = stack.d.endpoints.identities[ADAPTER_IDENTITY]!;
    const tasks = new CloudTasksClient(
      tokenClientOptions(stack.d.endpoints.cloudTasks, stack.d.endpoints.publicCaFile, () =>
        metadataServerToken(`http://${host}`),
      ),
    );
    try {
      const code = await tasks.pauseQueue({ name: stack.d.launchQueue }).then(
        () => 'OK',
        (error: { code?: number }) => grpc.status[error.code ?? 2],
      );
      expect(code).toBe('PERMISSION_DENIED');
    } finally {
      await tasks.close();
    }
  });

  it('report exits 1 for a cluster failing permanently (a forged placement namespace), naming it', async () => {
    const generation = await stack.move(b, { namespace: 'kube-system' });
    await stack.waitFor(`cluster ${b} refused for the forged namespace`, async () => {
      const own = await stack.own(b);
      return own?.observedGeneration === generation && own.health === 'False';
    });
    const { report: r, code } = await report();
    expect(code).toBe(1);
    expect(r.exit_code).toBe(1);
    expect(r.summary.permanent_failures).toEqual([b]);
    expect(rowOf(r, b)).toMatchObject({
      generation,
      permanent_failure: true,
      health: { status: 'False', reason: 'InvalidManagementNamespace' },
    });
    expect(r.summary.total).toBe(2);
    const text = await fleet('report');
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`failing permanently: ${b}`);
  });

  it('bad arguments exit 2; a management cluster without a queue is refused, nothing paused', async () => {
    const run = await fleet('pause', '--management-cluster', 'mgmt-9');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('management cluster mgmt-9 has no launch queue');
    expect((await fleet('pause', '--management-cluster', 'Not_A_Name')).code).toBe(2);
    expect((await fleet('report', '--not-converged-after', 'soon')).code).toBe(2);
  });
});
