import type { HyperFleetClient } from '../../shared/hyperfleet/client';
import { EXIT, parseFleetArgs, USAGE, UsageError, type FleetCommand, type Targets } from './args';
import {
  launchQueues,
  launchQueueState,
  setLaunchQueueState,
  type LaunchQueueRef,
  type QueueAdmin,
} from './queue/queue-control';
import { managementClusterQueue } from '../../shared/launch-queue/management-cluster-queues';
import { fleetReport } from './report/fleet-report';
import { readFleet } from './report/read-fleet';
import { renderReport } from './report/render-report';
import type { FleetRequestPublisher } from './requests/fleet-requests';
import { selectorText } from '../../shared/batch/batch-request';

/** What the command talks to, production or the local stack alike. */
export interface FleetConnections {
  /** Said on stderr before anything is done: where the command acts, and as whom. */
  readonly where: string;
  /** The launch queue, when known (pause and resume need it; the report shows its state). */
  readonly queue?: string;
  queueAdmin(): QueueAdmin;
  /** The fleet-requests topic (resync needs it). */
  readonly topic?: string;
  fleetRequests(): FleetRequestPublisher;
  hyperfleet(): Pick<HyperFleetClient, 'listAllClusters' | 'listStatuses'>;
  close(): Promise<void>;
}

/** Resolves the command's targets into connections; a UsageError when configuration is missing. */
export type Connect = (
  command: Exclude<FleetCommand, { kind: 'help' }> & Targets,
) => FleetConnections;

export interface FleetIo {
  stdout(text: string): void;
  stderr(text: string): void;
  now(): Date;
}

/**
 * `fleet pause|resume|report|resync`: parses, connects (production or the local stack, by `connect`),
 * runs, and returns the exit code (args.ts EXIT). Every failure is a line on stderr.
 */
export async function runFleet(
  argv: readonly string[],
  io: FleetIo,
  connect: Connect,
): Promise<number> {
  let command: FleetCommand;
  let connections: FleetConnections;
  try {
    command = parseFleetArgs(argv);
    if (command.kind === 'help') {
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    }
    connections = connect(command);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`fleet: ${error.message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  io.stderr(`fleet: ${connections.where}\n`);
  try {
    return await run(command, connections, io);
  } catch (error) {
    io.stderr(`fleet ${command.kind}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  } finally {
    await connections.close();
  }
}

async function run(
  command: Exclude<FleetCommand, { kind: 'help' }>,
  connections: FleetConnections,
  io: FleetIo,
): Promise<number> {
  if (command.kind === 'pause' || command.kind === 'resume')
    return pauseOrResume(command, connections, io);
  if (command.kind === 'resync') {
    const id = await connections
      .fleetRequests()
      .resync(command.selector, process.env.USER, io.now());
    io.stdout(
      `resync of ${selectorText(command.selector)} requested (message ${id} on ${connections.topic ?? 'the fleet-requests topic'})\n`,
    );
    io.stderr(
      'fleet: the adapter launches one batch execution for it (through the launch queue, so a paused queue holds it); each cluster reports its run in its pullsecret status.\n',
    );
    return EXIT.ok;
  }
  const fleet = await readFleet(connections.hyperfleet());
  const admin = connections.queue ? connections.queueAdmin() : undefined;
  const launchQueue =
    admin && connections.queue
      ? { name: connections.queue, state: await launchQueueState(admin, connections.queue) }
      : undefined;
  // A management cluster's queue paused and forgotten shows here too.
  const paused =
    admin && connections.queue
      ? (await launchQueues(admin, connections.queue))
          .filter((q) => q.managementCluster !== undefined && q.state === 'PAUSED')
          .map((q) => q.managementCluster!)
      : [];
  const report = fleetReport(fleet, {
    now: io.now(),
    notConvergedAfterMs: command.notConvergedAfterMs,
    ...(launchQueue ? { launchQueue } : {}),
    ...(paused.length > 0 ? { pausedManagementClusters: paused } : {}),
  });
  io.stdout(
    command.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderReport(report).join('\n')}\n`,
  );
  return report.exit_code;
}

/**
 * Pause or resume: one management cluster's launch queue, or every launch queue of the fleet. A
 * resumed management cluster is also resynced (a batch left its clusters alone while it was
 * paused), when the fleet-requests topic is known.
 */
async function pauseOrResume(
  command: Extract<FleetCommand, { kind: 'pause' | 'resume' }>,
  connections: FleetConnections,
  io: FleetIo,
): Promise<number> {
  const admin = connections.queueAdmin();
  const main = connections.queue!;
  const one = command.managementCluster;
  const queues: LaunchQueueRef[] = one
    ? [{ name: managementClusterQueue(main, one), managementCluster: one }]
    : await launchQueues(admin, main);
  if (one) await requireQueue(admin, queues[0]!.name, one);
  for (const queue of queues) {
    const state = await setLaunchQueueState(admin, queue.name, command.kind);
    io.stdout(`launch queue ${queue.name}: ${state}\n`);
  }
  if (command.kind === 'pause')
    io.stderr(
      `fleet: launches ${one ? `for management cluster ${one} ` : ''}wait in the queue (statuses say JobQueued)${one ? ' and batches leave its clusters alone' : ''}; \`fleet resume${one ? ` --management-cluster ${one}` : ''}\` releases them at the queue rate.\n`,
    );
  if (command.kind === 'resume' && one && connections.topic) {
    const id = await connections
      .fleetRequests()
      .resync({ kind: 'management-cluster', name: one }, process.env.USER, io.now());
    io.stdout(
      `resync of management-cluster=${one} requested (message ${id}): what batches left alone while it was paused\n`,
    );
  }
  return EXIT.ok;
}

/** A management cluster's queue must exist: a typo must not look like a pause. */
async function requireQueue(
  admin: QueueAdmin,
  queue: string,
  managementCluster: string,
): Promise<void> {
  try {
    await launchQueueState(admin, queue);
  } catch (error) {
    throw new Error(
      `management cluster ${managementCluster} has no launch queue ${queue} (is it in Terraform's management_clusters, with launch_queue.per_management_cluster on?): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
