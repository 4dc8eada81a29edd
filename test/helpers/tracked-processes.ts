import {
  startReadyProcess,
  type ReadyProcess,
  type StartOptions,
} from '../../emulators/common/child-process';

const running = new Set<ReadyProcess>();

/** Starts a ready-line process that is stopped after the test file even when an assertion fails. */
export async function startTracked(options: StartOptions): Promise<ReadyProcess> {
  const started = await startReadyProcess(options);
  running.add(started);
  started.child.once('exit', () => running.delete(started));
  return started;
}

/** Stops every tracked process (registered in jest.setup.ts). */
export async function stopTracked(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(2000)));
  running.clear();
}
