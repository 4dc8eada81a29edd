import fs from 'node:fs';
import path from 'node:path';
import { startReadyProcess, type ReadyProcess } from '../../common/child-process';
import { DEFAULT_LAYOUT, type NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { Components } from './components';
import { LOCAL_PROJECT } from './layout';
import type { StackOptions } from './stack-description';

/**
 * What every step of the stack's start shares: where logs go, how a child process is started
 * (the emulators CLI, under the parent watchdog) and the components started so far, which
 * `stop()` ends in reverse order.
 */
export interface Launcher {
  readonly options: StackOptions;
  readonly logDir: string;
  /** The log file of a component name. */
  readonly log: (name: string) => string;
  /** Node flags of every child: it stops by itself if this process dies (parent-watchdog.ts). */
  readonly watchdog: readonly string[];
  /** The environment every child starts from: no ambient Google credentials or project. */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly components: Components;
  /**
   * The namespace layout now: what a (re)started adapter and the job's definition get. Changed by
   * the stack's relayout (a `terraform apply` of management_namespace).
   */
  readonly layout: { current: NamespaceLayout };
  /** Starts `npm run emulators -- <name> args`, registered as `component`, once it is ready. */
  emulator(
    name: string,
    args: string[],
    env?: NodeJS.ProcessEnv,
    component?: string,
  ): Promise<ReadyProcess>;
  /** A file in the work directory, owner-only: configs and tokens the children read. */
  writePrivateFile(name: string, content: string): string;
}

export function createLauncher(options: StackOptions): Launcher {
  const logDir = path.join(options.workDir, 'logs');
  fs.mkdirSync(path.join(logDir, 'jobs'), { recursive: true, mode: 0o700 });
  const log = (name: string) => path.join(logDir, `${name}.log`);
  const cli = path.join(options.root, 'dist/emulators/pullsecret/cli.js');
  const watchdog = [
    '--require',
    path.join(options.root, 'dist/emulators/common/parent-watchdog.js'),
  ];
  const baseEnv: NodeJS.ProcessEnv = {
    EXIT_WITH_PARENT_PID: String(process.pid),
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: process.env.LANG,
    ...(process.env.NODE_EXTRA_CA_CERTS
      ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }
      : {}),
    METADATA_SERVER_DETECTION: 'none',
    GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
  };
  const components = new Components();
  return {
    options,
    logDir,
    log,
    watchdog,
    baseEnv,
    components,
    layout: { current: options.namespaceLayout ?? DEFAULT_LAYOUT },
    emulator: async (name, args, env = baseEnv, component = name) => {
      const child = await startReadyProcess({
        command: process.execPath,
        args: [...watchdog, cli, name, ...args],
        env,
        logFile: log(component),
      });
      components.add(component, { pid: child.child.pid ?? -1, stop: () => child.stop() });
      options.onProgress?.(component, child.info);
      return child;
    },
    writePrivateFile: (name, content) => {
      const file = path.join(options.workDir, name);
      fs.writeFileSync(file, content, { mode: 0o600 });
      return file;
    },
  };
}

/** One variable of an emulator's ready line (its `env`), or nothing when it has none. */
export function emulatorEnv(emulator: ReadyProcess, name: string): Record<string, string> {
  const env = emulator.info.env as Record<string, unknown> | undefined;
  const value = env?.[name];
  return typeof value === 'string' ? { [name]: value } : {};
}
