import type { ServerResponse } from 'node:http';
import { sleep, type FaultInjector } from './fault-injector';

/** An injected HTTP failure the route must answer now, in its service's error shape. */
export interface HttpFailure {
  readonly status: number;
  readonly message?: string;
  /** The service's error code for the body (e.g. `HYPERFLEET-NTF-000`), where it has one. */
  readonly code?: string;
}

/**
 * Applies the injected fault for one HTTP request (key `METHOD /path`), the same way for every
 * HTTP emulator: waits `delayMs` (and a `hold` until released); returns a fault without `after` for the caller to throw in its
 * own error shape; for an `after` fault it lets the route perform the request and then replaces
 * the route's answer on `res` by `renderError(status, message)`, so the effect happened but the
 * caller sees only the error (a response lost on the way back).
 */
export async function applyHttpFault(
  faults: FaultInjector,
  key: string,
  res: ServerResponse,
  renderError: (failure: HttpFailure) => void,
  /** The caller's User-Agent: a rule with `client` is taken only by that caller. */
  client = '',
): Promise<HttpFailure | undefined> {
  const fault = faults.take(key, '', client);
  if (fault?.delayMs) await sleep(fault.delayMs);
  if (fault?.held) await fault.held;
  if (fault?.status === undefined) return undefined;
  const failure: HttpFailure = {
    status: Number(fault.status),
    ...(fault.message !== undefined ? { message: fault.message } : {}),
    ...(fault.code !== undefined ? { code: fault.code } : {}),
  };
  // Headers a proxy in front would add (e.g. Retry-After) go on the error answer.
  const setProxyHeaders = () => {
    for (const [name, value] of Object.entries(fault.headers ?? {})) res.setHeader(name, value);
  };
  if (!fault.after) {
    setProxyHeaders();
    return failure;
  }
  answerLaterWithError(res, () => {
    setProxyHeaders();
    renderError(failure);
  });
  return undefined;
}

/**
 * Swallows what the route writes on `res` (status line, headers, body) and, when the route ends
 * its answer, writes the error instead. Routes answer with writeHead + end (sendJson), which is
 * all this needs to intercept.
 */
function answerLaterWithError(res: ServerResponse, writeError: () => void): void {
  const original = {
    writeHead: res.writeHead,
    write: res.write,
    end: res.end,
    setHeader: res.setHeader,
  };
  const restore = () => Object.assign(res, original);
  res.writeHead = (() => res) as unknown as ServerResponse['writeHead'];
  res.setHeader = (() => res) as unknown as ServerResponse['setHeader'];
  res.write = (() => true) as unknown as ServerResponse['write'];
  res.end = (() => {
    restore();
    writeError();
    return res;
  }) as unknown as ServerResponse['end'];
}
