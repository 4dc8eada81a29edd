/** A started emulator, as the registry and the ready line see it (firebase-tools style). */
export interface RunningEmulator {
  readonly name: string;
  /** Where clients connect: `host:port` for gRPC, a URL for HTTP. */
  readonly endpoint: string;
  /** The ready-line fields: name, endpoint and emulator-specific keys (admin URL, kubeconfig, ...). */
  info(): Record<string, unknown>;
  stop(): Promise<void>;
}

/** Prints the one JSON line that tells a parent process the emulator is ready. */
export function printReadyLine(emulator: RunningEmulator): void {
  process.stdout.write(`${JSON.stringify(emulator.info())}\n`);
}
