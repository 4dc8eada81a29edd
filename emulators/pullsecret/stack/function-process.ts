import net from 'node:net';
import path from 'node:path';
import { startReadyProcess, type ReadyProcess } from '../../common/child-process';

/** Starts one function in functions-framework, as Cloud Run functions runs it, and waits until it listens. */
export async function startFunctionProcess(options: {
  root: string;
  /** Node options, e.g. the parent watchdog preload. */
  nodeArgs?: readonly string[];
  target: 'adapter' | 'reporter';
  port: number;
  env: NodeJS.ProcessEnv;
  logFile: string;
}): Promise<ReadyProcess> {
  // The package does not export main.js; it sits beside its entry point (build/src/).
  const main = path.join(
    path.dirname(require.resolve('@google-cloud/functions-framework', { paths: [options.root] })),
    'main.js',
  );

  // The bundle, as `npm run package` ships it (scripts/bundle.cjs): what runs here is what deploys.
  const source = path.join(options.root, 'dist-bundle', options.target, 'index.mjs');
  const url = `http://127.0.0.1:${options.port}/`;
  const started = await startReadyProcess({
    command: process.execPath,
    args: [
      ...(options.nodeArgs ?? []),
      main,

      `--target=${options.target}`,
      '--signature-type=cloudevent',
      `--source=${source}`,
      `--port=${options.port}`,
    ],
    env: options.env,
    logFile: options.logFile,
    // A TCP connection is enough: an HTTP probe would only make functions-framework log an error.
    probe: () => canConnect(options.port),
  });
  return { ...started, info: { name: options.target, endpoint: url } };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
