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

/** One build stage of a Dockerfile. */
export interface DockerfileStage {
  /** What it is built FROM: an image reference, or an earlier stage's name. */
  readonly base: string;
  /** Its `AS` name, lower-cased as Docker compares them. */
  readonly name?: string;
  /** The index of the earlier stage it is built FROM, when `base` names one. */
  readonly parent?: number;
  /** Its own instructions, trimmed, without comments and blank lines. */
  readonly lines: readonly string[];
}

/** A Dockerfile's stages, in order (one line per instruction: the job image continues none). */
export function dockerfileStages(text: string): DockerfileStage[] {
  const stages: { base: string; name?: string; parent?: number; lines: string[] }[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (!from) {
      stages.at(-1)?.lines.push(line);
      continue;
    }
    const parent = stages.findIndex((stage) => stage.name === from[1]!.toLowerCase());
    stages.push({
      base: from[1]!,
      ...(from[2] ? { name: from[2].toLowerCase() } : {}),
      ...(parent >= 0 ? { parent } : {}),
      lines: [],
    });
  }
  return stages;
}

/** The instructions in effect in a stage: those of the stages it is built FROM, then its own. */
function inherited(stages: readonly DockerfileStage[], index: number): readonly string[] {
  const stage = stages[index]!;
  return [...(stage.parent === undefined ? [] : inherited(stages, stage.parent)), ...stage.lines];
}

/** The `ENV` settings and the `USER` in effect after these instructions. */
function settings(lines: readonly string[]): { env: Record<string, string>; user?: string } {
  const env: Record<string, string> = {};
  let user: string | undefined;
  for (const line of lines) {
    const setting = /^ENV ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (setting) env[setting[1]!] = setting[2]!;
    user = /^USER (\S+)$/.exec(line)?.[1] ?? user;
  }
  return { env, ...(user ? { user } : {}) };
}

/**
 * How the job's image runs Node, read from its Dockerfile's final stage (with the stages it is
 * built FROM): the flags its ENTRYPOINT passes before `main.mjs`, its `ENV` settings and `USER`,
 * and the `RUN` commands that warm the compile cache (in whichever stage runs them). The local
 * stack, the tests and the bench run the job's bundle with the same flags and NODE_OPTIONS, so
 * what they run and measure is what the image runs.
 */
export interface JobImageNode {
  /** The node binary the image runs (`/nodejs/bin/node`). */
  readonly binary: string;
  /** V8 and Node flags between the binary and `main.mjs` (e.g. `--max-opt=1`). */
  readonly nodeFlags: readonly string[];
  /** `ENV` settings of the final stage (NODE_OPTIONS, NODE_COMPILE_CACHE, ...). */
  readonly env: Readonly<Record<string, string>>;
  /** The `USER` the ENTRYPOINT runs as (undefined: the base image's). */
  readonly user: string | undefined;
  /** Exec-form `RUN` commands of any stage that run the node binary, as written. */
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

/**
 * Reads a job image Dockerfile. Refuses a warm-up that runs as another user, or with another
 * NODE_OPTIONS or cache directory, than the ENTRYPOINT: Node keys its compile cache by all three
 * (the uid names the cache's subdirectory), so the job would silently never read that cache.
 */
export function parseJobImageNode(dockerfile: string): JobImageNode {
  const stages = dockerfileStages(fs.readFileSync(dockerfile, 'utf8'));
  const final = inherited(stages, stages.length - 1);
  const execForm = (line: string): string[] => {
    const parsed = execFormSchema.safeParse(JSON.parse(line.slice(line.indexOf('['))));
    if (!parsed.success)
      throw new Error(`${dockerfile}: ${line}: not an exec-form ["executable", ...args] array`);
    return parsed.data;
  };

  const entrypoint = final
    .filter((line) => line.startsWith('ENTRYPOINT ['))
    .map(execForm)
    .at(-1);
  const script = entrypoint?.indexOf('main.mjs') ?? -1;
  if (!entrypoint || script < 1)
    throw new Error(
      `${dockerfile}: no exec-form ENTRYPOINT ["NODE", ...FLAGS, "main.mjs"] in the final stage`,
    );
  const binary = entrypoint[0]!;
  const { env, user } = settings(final);
  const describe = (at: { env: Record<string, string>; user?: string }) =>
    `as USER ${at.user ?? "(the base image's)"} with NODE_OPTIONS=${at.env.NODE_OPTIONS ?? ''} and NODE_COMPILE_CACHE=${at.env.NODE_COMPILE_CACHE ?? ''}`;

  const warmups = stages.flatMap((stage, index) => {
    const before = stage.parent === undefined ? [] : inherited(stages, stage.parent);
    return stage.lines.flatMap((line, at) => {
      if (!line.startsWith('RUN [')) return [];
      const command = execForm(line);
      if (command[0] !== binary) return [];
      const context = settings([...before, ...stage.lines.slice(0, at)]);
      if (
        context.user !== user ||
        context.env.NODE_OPTIONS !== env.NODE_OPTIONS ||
        context.env.NODE_COMPILE_CACHE !== env.NODE_COMPILE_CACHE
      )
        throw new Error(
          `${dockerfile}: ${line}: warms the compile cache in stage ${index + 1} ${describe(context)}, but the ENTRYPOINT runs ${describe({ env, user })}: Node keys its compile cache by uid, NODE_OPTIONS and directory, so the job would never read it`,
        );
      return [command];
    });
  });
  return { binary, nodeFlags: entrypoint.slice(1, script), env, user, warmups };
}

/**
 * The node arguments that run the job's bundle as the image does: its ENTRYPOINT's flags and its
 * NODE_OPTIONS, given on the command line (the local stack and the tests, which use no compile cache).
 */
export function jobNodeArgs(): string[] {
  const image = readJobImageNode();
  return [...image.nodeFlags, ...(image.env.NODE_OPTIONS ?? '').split(' ').filter(Boolean)];
}
