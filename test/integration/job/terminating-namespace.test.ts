// The job against a management namespace that is being deleted, as real job processes: the
// Kubernetes emulator keeps the namespace Terminating for as long as its namespace controller is
// held (emulators/kube-apiserver/namespace-termination.ts), and refuses creates there as the
// NamespaceLifecycle admission plugin does. Deletes pass.
import { EXIT_CODES } from '../../../shared/job-result';
import { coreApi, failureOf } from '../../helpers/kubernetes';
import { leftAfterDelete } from '../../helpers/secret-manager';
import {
  SECRET,
  place,
  startTwoClusters,
  until,
  type TwoClusters,
} from '../../helpers/two-management-clusters';

const NS = 'clusters-cls-1';
// Far longer than the two in-process calls that start the namespace's termination while the
// apply's create is held; the held create is then performed into a Terminating namespace.
const HOLD_MS = 6_000;

describe('the job and a Terminating management namespace (Kubernetes emulator, real job processes)', () => {
  let t: TwoClusters;
  beforeAll(async () => {
    t = await startTwoClusters();
  });
  afterAll(async () => {
    await t.stop();
  });
  beforeEach(async () => {
    await t.reset();
  });
  afterEach(async () => {
    // Let any held namespace go, and give the next test its namespace back (as placement would).
    t.mgmt1.namespaceController.release(NS);
    if (!t.mgmt1.store.hasNamespace(NS))
      await coreApi(t.mgmt1).createNamespace({ body: { metadata: { name: NS } } });
  });

  /** Starts the namespace's deletion on mgmt-1 and keeps it Terminating. */
  const terminate = async () => {
    t.mgmt1.namespaceController.hold(NS);
    await coreApi(t.mgmt1).deleteNamespace({ name: NS });
    expect((await coreApi(t.mgmt1).readNamespace({ name: NS })).status?.phase).toBe('Terminating');
  };
  /** mgmt-1's calls on our Secret since the last clear, as `METHOD outcome`. */
  const calls = () =>
    t.mgmt1.requests
      .list()
      .filter((r) => r.target.includes('/secrets'))
      .map((r) => `${r.method} ${r.outcome}`);

  it('an apply fails transient NamespaceTerminating, never PermissionDenied, and writes nothing', async () => {
    await terminate();
    t.mgmt1.requests.clear();

    const applied = await t.run(1, 'mgmt-1', NS);
    expect(applied.code).toBe(EXIT_CODES.transient);
    expect(applied.result).toMatchObject({
      outcome: 'failed',
      reason: 'NamespaceTerminating',
      failure_kind: 'transient',
    });
    expect(applied.result.message).toContain(`namespace "${NS}" is being deleted`);
    expect(applied.result.message).toContain('No permission is missing');
    expect(applied.result.message).toContain('retried');
    expect(applied.result.message).not.toMatch(/grant/i);
    // Its read (a dry-run patch: 404, nothing there), then the create NamespaceLifecycle refuses.
    expect(calls()).toEqual(['PATCH 404', 'POST 403']);
    expect(await t.everywhere()).toEqual([]);

    // Once the namespace has gone and placement has created it again, the retry writes.
    t.mgmt1.namespaceController.release(NS);
    await coreApi(t.mgmt1).createNamespace({ body: { metadata: { name: NS } } });
    const retried = await t.run(1, 'mgmt-1', NS, { LAUNCH_ATTEMPT: '2' });
    expect(retried.code).toBe(EXIT_CODES.success);
    expect(retried.result.kubernetes?.outcome).toBe('created');
    expect(await t.everywhere()).toEqual(['mgmt-1/clusters-cls-1']);
  }, 60_000);

  it('a delete removes our Secret from a Terminating namespace; run again, it finds it gone and succeeds', async () => {
    expect((await t.run(1, 'mgmt-1', NS)).result.kubernetes?.outcome).toBe('created');
    await terminate();
    t.mgmt1.requests.clear();

    const deleted = await t.run(2, 'mgmt-1', NS, { OPERATION: 'delete' });
    expect(deleted.code).toBe(EXIT_CODES.success);
    expect(deleted.result.kubernetes).toMatchObject({ namespace: NS, outcome: 'deleted' });
    expect(calls()).toEqual(['PATCH 200', 'DELETE 200']);
    expect(await t.everywhere()).toEqual([]);

    const again = await t.run(2, 'mgmt-1', NS, { OPERATION: 'delete', LAUNCH_ATTEMPT: '2' });
    expect(again.code).toBe(EXIT_CODES.success);
    expect(again.result.secret_manager?.secret).toBe('absent');
  }, 60_000);

  it('a delete racing a lagging apply after the namespace started terminating: nothing of ours is left once it goes', async () => {
    // Generation 1 claims, stores in Secret Manager, finds nothing on mgmt-1, and sends its
    // create, which is held (received, not yet performed)...
    t.mgmt1.faults.add({ match: `POST /api/v1/namespaces/${NS}/secrets`, delayMs: HOLD_MS });
    const lagging = t.run(1, 'mgmt-1', NS);
    await until('generation 1 to send its create', () => t.mgmt1.faults.pending() === 0);
    expect(await t.places()).toEqual([place('mgmt-1', NS)]);
    // ...while the cluster is deleted: the namespace starts terminating, and the delete runs.
    await terminate();
    const deleted = await t.run(2, 'mgmt-1', NS, { OPERATION: 'delete' });
    expect(deleted.code).toBe(EXIT_CODES.success);
    expect(deleted.result).toMatchObject({
      outcome: 'succeeded',
      kubernetes: { namespace: NS, outcome: 'absent' },
      secret_manager: { secret: 'deleted' },
    });

    // The held create reaches a Terminating namespace: refused, so the apply wrote nothing.
    const late = await lagging;
    expect(late.code).toBe(EXIT_CODES.transient);
    expect(late.result).toMatchObject({
      reason: 'NamespaceTerminating',
      failure_kind: 'transient',
    });
    const creates = t.mgmt1.requests.list().filter((r) => r.method === 'POST');
    expect(creates.map((r) => r.outcome)).toEqual([403]);

    t.mgmt1.namespaceController.release(NS);
    expect(await failureOf(coreApi(t.mgmt1).readNamespace({ name: NS }))).toMatchObject({
      code: 404,
    });
    expect(await t.everywhere()).toEqual([]);
    expect(await leftAfterDelete(t.secretManager, SECRET)).toBe('tombstone');
  }, 60_000);
});
