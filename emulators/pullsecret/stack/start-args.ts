import { DURATION_FORMAT, flagDurationMs, parseFlags } from '../../common/cli-flags';

export const START_USAGE = `Usage: npm start -- [--once] [--json] [--timeout 180s] [--no-demo] [--work-dir .local]
  --once          exit after the demo cluster converged (0), or on failure or timeout (1)
  --json          progress as JSON lines (the default when stdout is not a terminal)
  --timeout D     how long --once and the demo wait for convergence; D is ${DURATION_FORMAT}
  --no-demo       start everything but create no demo cluster
  --work-dir DIR  logs, kubeconfig and stack.json (default .local in the repository)
Exit codes: 0 converged or stopped, 1 failed or timed out, 2 bad arguments.`;

/** What `npm start` was asked to do. */
export interface StartArgs {
  readonly help: boolean;
  readonly once: boolean;
  readonly json: boolean;
  readonly demo: boolean;
  /** As given (for messages), and in ms. */
  readonly timeout: string;
  readonly timeoutMs: number;
  readonly workDir?: string;
}

/** Parses `npm start`'s flags; throws UsageError on unknown flags, stray arguments or a bad duration. */
export function parseStartArgs(argv: readonly string[]): StartArgs {
  const { values } = parseFlags(argv, {
    once: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '180s' },
    'work-dir': { type: 'string' },
    'no-demo': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  return {
    help: values.help,
    once: values.once,
    json: values.json,
    demo: !values['no-demo'],
    timeout: values.timeout,
    timeoutMs: flagDurationMs('timeout', values.timeout),
    ...(values['work-dir'] !== undefined ? { workDir: values['work-dir'] } : {}),
  };
}
