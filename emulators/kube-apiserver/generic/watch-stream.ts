import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Obj } from '../object-book';
import type { WatchEvent, WatchHub } from './watch-hub';

export interface WatchRequest {
  /** Which events this watch carries (resource, namespace, selectors). */
  readonly accepts: (event: WatchEvent) => boolean;
  /** The objects that exist now, sent as ADDED when the watch starts without a resourceVersion. */
  readonly initial: () => Obj[];
  /** `?resourceVersion=`: replay the changes after it ('' or '0': start from the current state). */
  readonly resourceVersion: string;
  /** `?timeoutSeconds=`: the server ends the stream then, as the real one does. */
  readonly timeoutSeconds: number;
  /** Renders an object for this watch (e.g. the apiVersion of the URL). */
  readonly render: (object: Obj) => Obj;
}

const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

/**
 * Serves a watch as the API server does: HTTP 200 with a chunked stream of JSON lines
 * `{"type":"ADDED|MODIFIED|DELETED","object":{...}}`. A resourceVersion older than the kept
 * history gets one ERROR event with a 410 Expired Status ("too old resource version").
 */
export function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  hub: WatchHub,
  watch: WatchRequest,
): void {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  // Headers go out at once, as the API server's do: clients wait for them before they act.
  res.flushHeaders();
  const send = (event: WatchEvent) => {
    if (watch.accepts(event)) res.write(line(event.type, watch.render(event.object)));
  };
  const from = Number(watch.resourceVersion);
  if (watch.resourceVersion === '' || watch.resourceVersion === '0' || !Number.isFinite(from)) {
    for (const object of watch.initial()) res.write(line('ADDED', watch.render(object)));
  } else {
    const replay = hub.since(from);
    if (!replay) {
      res.end(
        line('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${watch.resourceVersion}`,
          reason: 'Expired',
          code: 410,
        }),
      );
      return;
    }
    replay.forEach(send);
  }
  const unsubscribe = hub.subscribe(send);
  const timer = setTimeout(() => res.end(), watch.timeoutSeconds * 1000);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    unsubscribe();
  };
  res.on('close', stop);
  req.on('close', stop);
}
