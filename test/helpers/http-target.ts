import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a target received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** How the target answers one request: a status (and headers), or `hold` until released. */
export type TargetAnswer = { status: number; headers?: Record<string, string> } | 'hold';

/**
 * A local HTTP server standing for a Cloud Tasks worker: it records every request, answers as
 * `answer` says, and can hold requests open (to fill a queue's concurrency) until `release()`.
 * `next()` resolves with the next request received: tests wait on it instead of sleeping.
 */
export interface HttpTarget {
  readonly url: string;
  readonly received: ReceivedRequest[];
  answer: (request: ReceivedRequest) => TargetAnswer;
  /** Resolves with the `n`-th request (1-based) once it has arrived. */
  nth(n: number): Promise<ReceivedRequest>;
  /** Answers every held request with `status`; how many were held. */
  release(status?: number): number;
  readonly held: number;
  close(): Promise<void>;
}

export async function startHttpTarget(): Promise<HttpTarget> {
  const received: ReceivedRequest[] = [];
  const waiters: { n: number; resolve: (r: ReceivedRequest) => void }[] = [];
  const held: http.ServerResponse[] = [];
  const target = {
    answer: (() => ({ status: 200 })) as HttpTarget['answer'],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      for (const waiter of waiters.filter((w) => w.n === received.length)) waiter.resolve(request);
      const answer = target.answer(request);
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get answer() {
      return target.answer;
    },
    set answer(value) {
      target.answer = value;
    },
    nth: (n) =>
      received.length >= n
        ? Promise.resolve(received[n - 1]!)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    release: (status = 200) => {
      const count = held.length;
      for (const res of held.splice(0)) {
        res.writeHead(status);
        res.end();
      }
      return count;
    },
    get held() {
      return held.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
