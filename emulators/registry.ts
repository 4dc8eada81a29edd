import type { RunningEmulator } from './common/emulator';
import { LOCAL_SIMULATED_ADAPTERS, startHyperFleetApiEmulator } from './hyperfleet-api/server';
import { startKubeApiServerEmulator } from './kube-apiserver/server';
import { startSecretManagerEmulator } from './secret-manager/server';

/** Command-line options every emulator understands, plus its own. */
export interface EmulatorArgs {
  readonly host: string;
  readonly port: number;
  readonly adminPort: number;
  readonly dataDir?: string;
  /** Positional arguments after the emulator name (e.g. namespaces to seed). */
  readonly rest: readonly string[];
  readonly options: Readonly<Record<string, string | undefined>>;
}

/** Every emulator `npm run emulators -- <name>` can start, by name. */
export const EMULATORS: Record<string, (args: EmulatorArgs) => Promise<RunningEmulator>> = {
  'secret-manager': (args) =>
    startSecretManagerEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      ...(args.dataDir ? { dataDir: args.dataDir } : {}),
    }),
  // Positional arguments are namespaces to create, e.g. `kube-apiserver clusters-demo`.
  'kube-apiserver': (args) =>
    startKubeApiServerEmulator({
      host: args.host,
      port: args.port,
      namespaces: args.rest,
      ...(args.dataDir ? { stateDir: args.dataDir } : {}),
    }),
  // --required-adapters a,b,c; --simulate-adapters (validation, dns and placement report by themselves);
  // --token TOKEN=identity turns authentication on.
  'hyperfleet-api': (args) =>
    startHyperFleetApiEmulator({
      host: args.host,
      port: args.port,
      ...(args.options['required-adapters']
        ? { requiredAdapters: args.options['required-adapters'].split(',') }
        : {}),
      ...(args.options['simulate-adapters'] !== undefined
        ? { simulatedAdapters: LOCAL_SIMULATED_ADAPTERS }
        : {}),
      ...(args.options.token
        ? { tokens: Object.fromEntries([args.options.token.split('=') as [string, string]]) }
        : {}),
    }),
};
