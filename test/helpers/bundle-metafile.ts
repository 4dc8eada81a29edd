import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './run-process';

/** The parts of esbuild's metafile (dist-bundle/NAME/meta.json, scripts/bundle.cjs) the tests read. */
export interface BundleMetafile {
  readonly outputs: Readonly<
    Record<string, { readonly inputs: Readonly<Record<string, unknown>> }>
  >;
}

/** What `npm run build` wrote for one bundle (adapter, reporter, pull-secret-job). */
export function readBundleMetafile(bundle: string): BundleMetafile {
  return JSON.parse(
    fs.readFileSync(path.join(ROOT, 'dist-bundle', bundle, 'meta.json'), 'utf8'),
  ) as BundleMetafile;
}

/** The output file (absolute path) of a bundle whose inputs include `what` (a path or its part). */
export function chunkHolding(bundle: string, what: string): string {
  const found = Object.entries(readBundleMetafile(bundle).outputs).find(([, output]) =>
    Object.keys(output.inputs).some((input) => input.includes(what)),
  );
  if (!found) throw new Error(`no chunk of dist-bundle/${bundle} holds ${what}`);
  return path.join(ROOT, found[0]);
}
