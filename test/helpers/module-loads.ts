import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkHolding } from './bundle-metafile';

// A Node module-load hook (node:module register) that appends each bundle file a process loads.
const HOOKS = `
import fs from 'node:fs';
export async function load(url, context, nextLoad) {
  if (url.includes('/dist-bundle/')) fs.appendFileSync(process.env.MODULE_LOAD_LOG, url + '\\n');
  return nextLoad(url, context);
}`;

/** Records which dist-bundle files a child process loads: pass `env` to it, then read `loaded()`. */
export function moduleLoadRecorder(): {
  env: Record<string, string>;
  loaded(): string;
  dispose(): void;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'module-loads-'));
  fs.writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
  const register = path.join(dir, 'register.mjs');
  fs.writeFileSync(
    register,
    "import { register } from 'node:module'; register('./hooks.mjs', import.meta.url);",
  );
  const log = path.join(dir, 'loads.log');
  fs.writeFileSync(log, '');
  return {
    env: { NODE_OPTIONS: `--import=${register}`, MODULE_LOAD_LOG: log },
    loaded: () => fs.readFileSync(log, 'utf8'),
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The chunk of a bundle (dist-bundle/NAME) that holds the OpenTelemetry SDK (esbuild's metafile). */
export function sdkChunkOf(bundle: string): string {
  return path.basename(chunkHolding(bundle, 'shared/tracing/sdk.ts'));
}
