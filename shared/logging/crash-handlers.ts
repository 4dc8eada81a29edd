import fs from 'node:fs';
import { inspect } from 'node:util';
import { redactCredentialShapes } from './credential-shapes';
import type { SecretRedactor } from './secret-redactor';

/** functions-framework's exit code after an uncaught error ("unused by Node.js"), kept for the functions. */
export const FUNCTION_CRASH_EXIT_CODE = 16;

export interface CrashHandlerOptions {
  /** The component named in the line (`pullsecret-job`, `pullsecret-adapter`, ...). */
  readonly component: string;
  /** Secrets the process knows; read at crash time, so later registrations count. */
  readonly redactor: SecretRedactor;
  readonly exitCode: number;
}

/** How deep the crash line follows an error's properties and causes. */
const DEPTH = 6;

/**
 * Replaces Node's crash printer (and functions-framework's, which prints `err.stack`): both write
 * the error, its message, properties and causes, straight to stderr, past any redaction. An
 * uncaught exception or unhandled rejection instead prints one JSON line (severity CRITICAL, for
 * Cloud Logging and Error Reporting) with every registered secret and every credential-shaped
 * string removed, then exits with `exitCode`. Prepended, so it runs before any other listener.
 */
export function installCrashHandlers(options: CrashHandlerOptions): void {
  const crash = (kind: string) => (reason: unknown) => {
    let line: string;
    try {
      line = crashLine(kind, reason, options);
    } catch {
      line = JSON.stringify({
        severity: 'CRITICAL',
        message: `${options.component} crashed (${kind}); the error could not be printed safely`,
      });
    }
    // Synchronous: the process exits right after, and stderr may be a pipe.
    fs.writeSync(2, `${line}\n`);
    process.exit(options.exitCode);
  };
  process.prependListener('uncaughtException', crash('uncaught exception'));
  process.prependListener('unhandledRejection', crash('unhandled rejection'));
}

/** The crash as one redacted JSON log line. */
export function crashLine(kind: string, reason: unknown, options: CrashHandlerOptions): string {
  // Registered secrets first: they cover whole texts (a pull secret), which a shape would split.
  const text = redactCredentialShapes(
    options.redactor.redactText(describe(reason, options.redactor, DEPTH)),
  );
  return JSON.stringify({
    severity: 'CRITICAL',
    message: `${options.component} crashed (${kind}): ${text}`,
    component: options.component,
  });
}

/**
 * What Node would print: the stack (or the value), the error's own properties and its cause. Bytes
 * among them are redacted before util.inspect turns them into hex.
 */
function describe(reason: unknown, redactor: SecretRedactor, depth: number): string {
  const shown = (value: unknown) =>
    inspect(redactor.printable(value), { depth: DEPTH, breakLength: Infinity });
  if (!(reason instanceof Error)) return shown(reason);
  const properties = Object.fromEntries(Object.entries(reason));
  const cause =
    reason.cause !== undefined && depth > 0
      ? `\n[cause]: ${describe(reason.cause, redactor, depth - 1)}`
      : '';
  return `${reason.stack ?? `${reason.name}: ${reason.message}`}${
    Object.keys(properties).length > 0 ? ` ${shown(properties)}` : ''
  }${cause}`;
}
