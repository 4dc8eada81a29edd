// Issue 41: a new version of the platform default pull secret reaches every cluster on the default
// within a minute, through Secret Manager's notification (the default's `topics`), the adapter's
// one batch launch and one execution re-applying every converged cluster on the default; the
// statuses stay Available=True throughout; a cluster with its own pull secret is not touched;
// `fleet pause --management-cluster` holds one management cluster (its launches wait, a rotation
// leaves its clusters) until `fleet resume` releases both; `fleet resync` re-applies one cluster on
// demand (bytes changed by hand are put back).
import fs from 'node:fs';
import path from 'node:path';
import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { sleep } from '../../shared/sleep';
import { canaryPullSecret } from '../helpers/canary';
import { ROOT, runNode } from '../helpers/run-process';
import { defaultPullSecretCanaries, scanForCanaries } from '../helpers/secret-scan';
import { CUSTOMER_PROJECT, idOn, startTestStack, type TestStack } from '../helpers/stack';

jest.setTimeout(180_000);

const FLEET = path.join(ROOT, 'dist/emulators/pullsecret/stack/fleet.js');

describe('rotating the platform default pull secret on the local stack', () => {
  let stack: TestStack;
  let stackFile: string;
  const own = canaryPullSecret('rotation-own');
  const onDefault = [
    ...[1, 2, 3].map(() => idOn('mgmt-1')),
    ...[1, 2, 3].map(() => idOn('mgmt-2')),
  ];
  let ownId: string;

  const dockerConfig = async (id: string) => {
    const secret = await stack.secretOf(id);
    const data = (secret?.data as Record<string, string> | undefined)?.['.dockerconfigjson'];
    return data === undefined ? undefined : Buffer.from(data, 'base64').toString();
  };
  const annotations = async (id: string) =>
    ((await stack.secretOf(id))?.metadata as { annotations?: Record<string, string> } | undefined)
      ?.annotations ?? {};

  beforeAll(async () => {
    stack = await startTestStack();
    stackFile = path.join(stack.d.workDir, 'rotation-stack.json');
    fs.writeFileSync(stackFile, JSON.stringify(stack.d), { mode: 0o600 });
    await Promise.all(
      onDefault.map((id, i) =>
        stack.api.createCluster({
          id,
          name: `e2e-rotation-${i + 1}`,
          spec: { ...demoClusterSpec('', CUSTOMER_PROJECT), pullSecret: {} },
        }),
      ),
    );
    ownId = await stack.createCluster('e2e-rotation-own', own.text);
    await Promise.all([...onDefault, ownId].map((id) => stack.converged(id, 1)));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('a new default version reaches all 6 clusters on the default within 60 s, Available=True throughout; the cluster with its own pull secret is untouched', async () => {
    const defaultSecret = stack.d.defaultPullSecret!;
    const before = await dockerConfig(onDefault[0]!);
    for (const id of onDefault) expect(await dockerConfig(id)).toBe(before);
    expect(
      new Set(
        await Promise.all(
          onDefault.map(async (id) => (await stack.own(id))?.data.management_cluster),
        ),
      ),
    ).toEqual(new Set(['mgmt-1', 'mgmt-2']));
    const ownBefore = await stack.secretOf(ownId);
    const executionsBefore = (await stack.executions()).length;

    const rotated = canaryPullSecret('rotation-new-default');
    const added = Date.now();
    const [version] = await stack.sm.addSecretVersion({
      parent: defaultSecret,
      payload: { data: Buffer.from(rotated.text) },
    });
    const number = version.name!.split('/').pop()!;

    // Watch every status until every Secret carries the new bytes: never Available=False.
    const notAvailable: string[] = [];
    const pending = new Set(onDefault);
    while (pending.size > 0) {
      expect(Date.now() - added).toBeLessThan(60_000);
      for (const id of [...pending]) {
        const status = await stack.own(id);
        if (status?.available !== 'True')
          notAvailable.push(`${id}: ${status?.available} ${status?.availableReason}`);
        if ((await dockerConfig(id)) === rotated.text) pending.delete(id);
      }
      if (pending.size > 0) await sleep(250);
    }
    const seconds = (Date.now() - added) / 1000;
    expect(notAvailable).toEqual([]);
    for (const id of onDefault)
      expect(await annotations(id)).toMatchObject({ 'hyperfleet.io/gcp-secret-version': number });
    // One batch execution served the six clusters (not one execution per cluster); it read the
    // newest enabled version itself (the Secrets keep naming `latest`, and carry the number read).
    const batches = (await stack.executions())
      .slice(executionsBefore)
      .filter((e) => e.env.BATCH_SELECTOR !== undefined);
    expect(
      batches.map((e) => [
        e.env.BATCH_SELECTOR,
        e.env.BATCH_REASON,
        e.env.PULL_SECRET_SECRET_VERSION,
      ]),
    ).toEqual([['default', 'rotation', `${defaultSecret}/versions/latest`]]);
    // The statuses converge on the new run with the success the batch's results reported.
    for (const id of onDefault) {
      await stack.converged(id, 1);
      expect((await stack.own(id))?.available).toBe('True');
    }
    // Its own pull secret: not touched at all (same resourceVersion).
    const ownAfter = await stack.secretOf(ownId);
    expect((ownAfter?.metadata as { resourceVersion?: string }).resourceVersion).toBe(
      (ownBefore?.metadata as { resourceVersion?: string }).resourceVersion,
    );
    expect(await dockerConfig(ownId)).toBe(own.text);
    process.stdout.write(
      `rotation: 6 clusters on 2 management clusters in ${seconds.toFixed(1)} s\n`,
    );
  });

  it('fleet pause --management-cluster holds that cluster alone: its launches wait, a rotation leaves its clusters; resume releases both', async () => {
    const onMgmt1 = onDefault.slice(0, 3);
    const onMgmt2 = onDefault.slice(3);
    const paused = await runNode(
      FLEET,
      ['pause', '--management-cluster', 'mgmt-1', '--stack', stackFile],
      {},
    );
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain('pullsecret-launches-mgmt-1: PAUSED');
    const report = await runNode(FLEET, ['report', '--stack', stackFile], {});
    expect(report.stdout).toContain('paused management clusters: mgmt-1');

    // A new generation on each side: mgmt-2's converges, mgmt-1's waits in its queue.
    const held = onMgmt1[0]!;
    const free = onMgmt2[0]!;
    const heldGeneration = (await stack.api.patchCluster(held, { labels: { paused: 'yes' } }))
      .generation;
    const freeGeneration = (await stack.api.patchCluster(free, { labels: { paused: 'no' } }))
      .generation;
    await stack.converged(free, freeGeneration);
    await stack.waitFor('the held launch to be queued', async () =>
      (await stack.own(held))?.appliedReason === 'JobQueued' ? true : undefined,
    );

    // A rotation meanwhile: mgmt-2's clusters get it, mgmt-1's are left alone.
    const before = await dockerConfig(onMgmt1[1]!);
    const rotated = canaryPullSecret('rotation-while-paused');
    await stack.sm.addSecretVersion({
      parent: stack.d.defaultPullSecret!,
      payload: { data: Buffer.from(rotated.text) },
    });
    for (const id of onMgmt2.slice(1))
      await stack.waitFor(`the rotation on ${id}`, async () =>
        (await dockerConfig(id)) === rotated.text ? true : undefined,
      );
    await sleep(2_000);
    for (const id of onMgmt1.slice(1)) expect(await dockerConfig(id)).toBe(before);
    expect((await stack.own(held))?.appliedReason).toBe('JobQueued');

    // Resume: the held launch goes out, and the resync it asks for brings mgmt-1 the rotation.
    const resumed = await runNode(
      FLEET,
      ['resume', '--management-cluster', 'mgmt-1', '--stack', stackFile],
      {},
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resync of management-cluster=mgmt-1 requested');
    await stack.converged(held, heldGeneration);
    for (const id of onMgmt1)
      await stack.waitFor(`the rotation on ${id} after the resume`, async () =>
        (await dockerConfig(id)) === rotated.text ? true : undefined,
      );
  });

  it('fleet resync CLUSTER_ID re-applies that cluster now: bytes changed by hand are put back', async () => {
    const id = onDefault[3]!;
    const expected = await dockerConfig(id);
    const on = (await stack.own(id))?.data.management_cluster as string;
    const path = `/api/v1/namespaces/${stack.namespaceOf(id)}/secrets/${id}-pull-secret`;
    // A change nobody reports (HyperShift sees a valid pull secret, so no drift is reported): only
    // a resync finds it; the next periodic one is a day away.
    const tampered = canaryPullSecret('rotation-tampered');
    const secret = (await stack.kubes.get(on)!.get(path))!;
    const answer = await stack.kubes.get(on)!.request('PUT', path, {
      ...secret,
      data: { '.dockerconfigjson': Buffer.from(tampered.text).toString('base64') },
    });
    expect(answer.status).toBe(200);
    await sleep(3_000);
    expect(await dockerConfig(id)).toBe(tampered.text);
    const run = await runNode(FLEET, ['resync', id, '--stack', stackFile], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`clusters=${id}`);
    const deadline = Date.now() + 60_000;
    while ((await dockerConfig(id)) !== expected) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(250);
    }
    expect((await stack.own(id))?.available).toBe('True');
  });

  it('retiring an older version is routine; disabling the newest enabled one raises the revoked-default alert, and fans nothing out', async () => {
    const secret = stack.d.defaultPullSecret!;
    const [versions] = await stack.sm.listSecretVersions({
      parent: secret,
      filter: 'state:ENABLED',
    });
    const numbers = versions.map((v) => Number(v.name!.split('/').pop())).sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThanOrEqual(2);
    const revokedLines = () =>
      stack
        .logText()
        .split('\n')
        .filter((line) => line.includes('default-pull-secret-revoked'));
    const executionsBefore = (await stack.executions()).length;
    await stack.sm.disableSecretVersion({ name: `${secret}/versions/${numbers[0]}` });
    await stack.waitFor('the retired version seen', async () =>
      stack.logText().includes(`version ${numbers[0]}: an older version`) ? true : undefined,
    );
    expect(revokedLines()).toEqual([]);
    const newest = numbers[numbers.length - 1]!;
    await stack.sm.disableSecretVersion({ name: `${secret}/versions/${newest}` });
    const alert = await stack.waitFor('the revoked-default alert', async () => revokedLines()[0]);
    expect(alert).toContain(`version ${newest} was disabled`);
    expect(alert).toMatch(/"severity":\s*"ERROR"/);
    expect((await stack.executions()).length).toBe(executionsBefore);
    // Back as it was: the version enabled again (a rotation to the newest enabled one).
    await stack.sm.enableSecretVersion({ name: `${secret}/versions/${newest}` });
  });

  it('leaks nothing: no pull secret in any log, status, message or execution spec', async () => {
    expect(
      await scanForCanaries(stack, [own, ...(await defaultPullSecretCanaries(stack))]),
    ).toEqual([]);
    expect(await stack.deadLetters()).toBe(0);
  });
});
