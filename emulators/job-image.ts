import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';

const DOCKERFILE_IN_REPO = 'functions/pull-secret-job/Dockerfile';
/** An exec-form instruction's argument: `["executable", "arg", ...]`. */
const execFormSchema = z.array(z.string()).min(1);

/** The job image's Dockerfile: found from this module up (it runs from emulators/ and dist/emulators/). */
function jobDockerfile(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, DOCKERFILE_IN_REPO);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir)
      throw new Error(`${DOCKERFILE_IN_REPO} not found above ${__dirname}`);
  }
}

/**
 * How the job's image runs Node, read from its Dockerfile's final stage: the flags its ENTRYPOINT
 * passes before `main.mjs`, its `ENV` settings, and the `RUN` commands that warm the compile cache.
 * The local stack, the tests and the bench run the job's bundle with the same flags and
 * NODE_OPTIONS, so what they run and measure is what the image runs.
 */
export interface JobImageNode {
  /** The node binary the image runs (`/nodejs/bin/node`). */
  readonly binary: string;
  /** V8 and Node flags between the binary and `main.mjs` (e.g. `--max-opt=1`). */
  readonly nodeFlags: readonly string[];
  /** `ENV` settings of the final stage (NODE_OPTIONS, NODE_COMPILE_CACHE, ...). */
  readonly env: Readonly<Record<string, string>>;
  /** Exec-form `RUN` commands of the final stage that run the node binary, as written. */
  readonly warmups: readonly (readonly string[])[];
}

let parsedImage: JobImageNode | undefined;

/**
 * The job image's Dockerfile, parsed once per process (the tests run the job hundreds of times);
 * throws naming the file and what is missing.
 */
export function readJobImageNode(): JobImageNode {
  parsedImage ??= parseJobImageNode(jobDockerfile());
  return parsedImage;
}

function parseJobImageNode(dockerfile: string): JobImageNode {
  const text = fs.readFileSync(dockerfile, 'utf8');
  const lines = text.split('\n').map((line) => line.trim());
  const lastFrom = lines.findLastIndex((line) => line.startsWith('FROM '));
  const finalStage = lines.slice(lastFrom + 1).filter((line) => line && !line.startsWith('#'));
  const execForm = (instruction: string): string[][] =>
    finalStage
      .filter((line) => line.startsWith(`${instruction} [`))
      .map((line) => {
        const parsed = execFormSchema.safeParse(JSON.parse(line.slice(instruction.length + 1)));
        if (!parsed.success)
          throw new Error(`${dockerfile}: ${line}: not an exec-form ["executable", ...args] array`);
        return parsed.data;
      });

  const entrypoint = execForm('ENTRYPOINT')[0];
  const script = entrypoint?.indexOf('main.mjs') ?? -1;
  if (!entrypoint || script < 1)
    throw new Error(
      `${dockerfile}: no exec-form ENTRYPOINT ["NODE", ...FLAGS, "main.mjs"] in the final stage`,
    );
  const binary = entrypoint[0]!;
  const env: Record<string, string> = {};
  for (const line of finalStage) {
    const setting = /^ENV ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (setting) env[setting[1]!] = setting[2]!;
  }
  return {
    binary,
    nodeFlags: entrypoint.slice(1, script),
    env,
    warmups: execForm('RUN').filter((command) => command[0] === binary),
  };
}

/**
 * The node arguments that run the job's bundle as the image does: its ENTRYPOINT's flags and its
 * NODE_OPTIONS, given on the command line (the local stack and the tests, which use no compile cache).
 */
export function jobNodeArgs(): string[] {
  const image = readJobImageNode();
  return [...image.nodeFlags, ...(image.env.NODE_OPTIONS ?? '').split(' ').filter(Boolean)];
}
