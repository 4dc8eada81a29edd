import fs from 'node:fs';
import path from 'node:path';
import { round } from './stats';

/** What one bundle (scripts/bundle.cjs) contains, from esbuild's metafile. */
export interface BundleFigures {
  readonly bundle: string;
  /** All .mjs files: the entry and every chunk. */
  readonly totalKiB: number;
  /** The entry and its static imports: what Node reads and compiles at start. */
  readonly atStartKiB: number;
  /** The largest packages read at start, and the largest chunks loaded only when needed. */
  readonly topAtStart: string;
  readonly topLazy: string;
}

interface Metafile {
  outputs: Record<
    string,
    {
      bytes: number;
      imports: { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, { bytesInOutput: number }>;
    }
  >;
}

const BUNDLES = path.join(__dirname, '../../dist-bundle');
const kib = (bytes: number) => round(bytes / 1024, 0);

/** Package name (or our folder) an input file belongs to. */
function owner(file: string): string {
  const match = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(file);
  return match ? match[1]! : file.split('/').slice(0, 2).join('/');
}

function largest(sizes: Map<string, number>, count: number): string {
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${kib(bytes)}K`)
    .join(', ');
}

/** The size report of every bundle: totals, what loads at start and what waits. */
export function bundleReport(): BundleFigures[] {
  return ['adapter', 'reporter', 'pull-secret-job'].map((bundle) => {
    const meta = JSON.parse(
      fs.readFileSync(path.join(BUNDLES, bundle, 'meta.json'), 'utf8'),
    ) as Metafile;
    const outputs = meta.outputs;
    const entry = Object.keys(outputs).find((key) => /\/(index|main)\.mjs$/.test(key))!;
    const atStart = new Set<string>();
    const visit = (key: string) => {
      if (atStart.has(key)) return;
      atStart.add(key);
      for (const i of outputs[key]!.imports)
        if (!i.external && i.kind === 'import-statement') visit(i.path);
    };
    visit(entry);
    const startPackages = new Map<string, number>();
    for (const key of atStart)
      for (const [file, input] of Object.entries(outputs[key]!.inputs))
        startPackages.set(owner(file), (startPackages.get(owner(file)) ?? 0) + input.bytesInOutput);
    const lazy = new Map<string, number>();
    for (const [key, output] of Object.entries(outputs)) {
      if (atStart.has(key) || !key.endsWith('.mjs')) continue;
      const main = Object.entries(output.inputs).sort(
        (a, b) => b[1].bytesInOutput - a[1].bytesInOutput,
      )[0];
      if (main) lazy.set(owner(main[0]), (lazy.get(owner(main[0])) ?? 0) + output.bytes);
    }
    const mjs = Object.entries(outputs).filter(([key]) => key.endsWith('.mjs'));
    return {
      bundle,
      totalKiB: kib(mjs.reduce((sum, [, o]) => sum + o.bytes, 0)),
      atStartKiB: kib([...atStart].reduce((sum, key) => sum + outputs[key]!.bytes, 0)),
      topAtStart: largest(startPackages, 6),
      topLazy: largest(lazy, 4),
    };
  });
}
