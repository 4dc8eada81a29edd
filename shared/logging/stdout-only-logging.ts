// Bundle-time substitute for `@google-cloud/logging` as @google-cloud/logging-winston imports it
// (scripts/bundle.cjs swaps it in; the unbundled build and the unit tests use the real package).
//
// Why: in `redirectToStdout` mode, the only mode createLogger uses, logging-winston writes through
// the library's LogSync, which needs from `Logging` only `projectId` and `entry()`. The real
// `Logging` constructor also builds the Cloud Logging API's gRPC clients (loading their protos and
// google-gax) that this mode never calls: about a third of a function's module load. The lines
// written are the library's own (same LogSync, same Entry), so Cloud Logging parses them as before.
import type { Writable } from 'node:stream';
import { Entry } from '@google-cloud/logging/build/src/entry';
import { LogSync } from '@google-cloud/logging/build/src/log-sync';
import type { Logging as RealLogging } from '@google-cloud/logging';

const LEFT_OUT =
  'the Cloud Logging API transport is not part of this bundle (createLogger writes JSON lines to stdout); use redirectToStdout';

export { Entry, LogSync };

/** The part of `Logging` that LogSync uses. */
export class Logging {
  readonly projectId: string;
  readonly detectedResource: undefined = undefined;

  constructor(options?: { projectId?: string }) {
    // The real constructor's default: LogSync writes it into logName when no project is known.
    this.projectId = options?.projectId || '{{projectId}}';
  }

  entry(resource?: ConstructorParameters<typeof Entry>[0], data?: unknown): Entry {
    return new Entry(resource, data as ConstructorParameters<typeof Entry>[1]);
  }

  logSync(
    name: string,
    transport?: Writable,
    options?: ConstructorParameters<typeof LogSync>[3],
  ): LogSync {
    return new LogSync(this as unknown as RealLogging, name, transport, options);
  }

  log(): never {
    throw new Error(LEFT_OUT);
  }
}

/** Used by logging-winston's express middleware only, which nothing here installs. */
export const Log = {
  formatName_(): never {
    throw new Error(LEFT_OUT);
  },
};
export const middleware = {
  express: {
    makeMiddleware(): never {
      throw new Error(LEFT_OUT);
    },
  },
};
