import path from 'node:path';
import { createDemoCluster } from './demo';
import { isReady, readHandoff } from './handoff';
import { DEFAULT_MANAGEMENT_CLUSTER } from './layout';
import { startLiveTimeline, type LiveTimeline, type TimelineOutput } from './live-timeline';
import type { StackDescription } from './stack-description';
import { convergedSummary } from './summary';

export interface RunOptions extends TimelineOutput {
  readonly once: boolean;
  readonly demo: boolean;
  readonly timeout: string;
  readonly timeoutMs: number;
  readonly stop: (code: number) => Promise<void>;
}

/** The running stack as stack.json records it, with the console's URL. */
export type RunningStack = StackDescription & { console: { endpoint: string } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each adapter's Available condition, for a demo cluster that did not converge. */
async function adapterStates(timeline: LiveTimeline, clusterId: string): Promise<string> {
  const statuses = await timeline.api.listStatuses(clusterId).catch(() => []);
  const state = (adapter: string) => {
    const available = statuses
      .find((s) => s.adapter === adapter)
      ?.conditions.find((c) => c.type === 'Available');
    return `${adapter} ${available ? `Available=${available.status} (${available.reason ?? ''}: ${available.message ?? ''})` : 'not reported yet'}`;
  };
  return `${state('pullsecret')}; ${state('hypershift')}`;
}

/** Waits for the demo cluster to converge and prints the summary; false on timeout. */
async function awaitConvergence(
  d: RunningStack,
  o: RunOptions,
  timeline: LiveTimeline,
  demo: { readonly id: string; readonly name: string },
): Promise<boolean> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const current = timeline.clusters().find((c) => c.id === demo.id);
    // Ready: Reconciled=True (validation, dns, placement, pullsecret and hypershift Available at
    // this generation), and the handoff is there: our Secret and the HostedCluster naming it.
    const handoff = isReady(current)
      ? await readHandoff(timeline.system, timeline.kubes, demo, DEFAULT_MANAGEMENT_CLUSTER)
      : undefined;
    if (handoff?.secret && handoff.hostedCluster) {
      await sleep(500);
      await timeline.tick();
      timeline.flushHeldBack();
      const elapsedMs = Date.now() - o.started;
      o.say(
        convergedSummary(d, { id: demo.id, ...handoff }, elapsedMs, {
          once: o.once,
          consoleUrl: d.console.endpoint,
        }),
        {
          outcome: 'converged',
          cluster_id: demo.id,
          elapsed_ms: elapsedMs,
          management_cluster: handoff.managementCluster,
        },
      );
      return true;
    }
    if (Date.now() > deadline) {
      o.say(
        `\nThe demo cluster did not converge within ${o.timeout}: ${await adapterStates(timeline, demo.id)}. See the logs in ${d.logDir}.`,
        { outcome: 'timeout' },
      );
      return false;
    }
    await sleep(250);
  }
}

/** Stops the timeline and the stack with `code` (`--once`, a timeout). */
async function finish(o: RunOptions, timeline: LiveTimeline, code: number): Promise<number> {
  timeline.stop();
  await o.stop(code);
  return code;
}

/** The running part of `npm start`: timeline, demo cluster, convergence, summary. */
export async function runDemo(d: RunningStack, o: RunOptions): Promise<number> {
  const timeline = startLiveTimeline(d, o);
  o.say(
    `\nEverything is up. Endpoints and environment: ${path.relative(process.cwd(), path.join(d.workDir, 'stack.json'))}\nLocal console: ${d.console.endpoint}`,
    { console: d.console.endpoint },
  );
  if (!o.demo) {
    o.say(
      'No demo cluster (--no-demo). Create clusters with the HyperFleet API; see docs/local-stack.md, "Try it".',
    );
    return o.once ? finish(o, timeline, 0) : new Promise<number>(() => undefined);
  }
  const demo = await createDemoCluster(timeline.api);
  timeline.names.set(demo.id, demo.name);
  o.say(
    `Created demo cluster ${demo.name} (${demo.id}) with a generated demo pull secret; watching it converge:\n`,
    { cluster_id: demo.id },
  );
  if (!(await awaitConvergence(d, o, timeline, demo))) return finish(o, timeline, 1);
  if (o.once) return finish(o, timeline, 0);
  o.say(
    '\nStill running: create, patch and delete clusters and watch the system react. Ctrl-C stops everything.\n',
  );
  return new Promise<number>(() => undefined);
}
