import fs from 'node:fs';
import path from 'node:path';

/**
 * Programs some tests run besides Node. Locally a missing one skips those tests (the jest global
 * setup prints one line per missing program, test/global-setup.ts); on CI (`CI=true`, which
 * .ci/run exports) it fails the run instead, so CI never passes without having run them.
 */
export const REQUIRED_TOOLS = {
  terraform: {
    runs: 'real Terraform on the provider-free modules (validations, templates, outputs)',
    ciInstall:
      '.ci/run installs it where it is missing (Terraform CI_TERRAFORM_VERSION from releases.hashicorp.com, checksum-verified, into ~/.cache/pullsecret-adapter-ci/bin; .ci/lib/tools.sh)',
  },
  kubectl: {
    runs: 'kubectl against the Kubernetes emulator (apply, get, auth can-i)',
    ciInstall:
      '.ci/run installs it where it is missing (kubectl CI_KUBECTL_VERSION from dl.k8s.io, checksum-verified, into ~/.cache/pullsecret-adapter-ci/bin; .ci/lib/tools.sh)',
  },
} as const;
export type RequiredTool = keyof typeof REQUIRED_TOOLS;

/** The functions that mark tests as needing a tool; the global setup looks for their calls. */
export const TOOL_GUARDS = ['describeWithTool', 'itWithTool'] as const;

/** Where an executable is on `pathVariable` (PATH), if anywhere. */
export function findOnPath(
  command: string,
  pathVariable = process.env.PATH ?? '',
): string | undefined {
  for (const dir of pathVariable.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether this run is CI's (.ci/run exports CI=true), where nothing may be skipped. */
export function onCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true';
}

/** Why a missing tool fails the run on CI, and how CI gets it. */
export function missingOnCiMessage(tool: RequiredTool): string {
  return `${tool} is not on PATH, and on CI (CI=true) the tests that run ${REQUIRED_TOOLS[tool].runs} must run, not be skipped: ${REQUIRED_TOOLS[tool].ciInstall}.`;
}

/**
 * `describe` when `tool` is on PATH. Without it: on CI one failing test naming the tool and how
 * CI installs it; locally the block is skipped (the global setup has said so once).
 */
export function describeWithTool(tool: RequiredTool, title: string, body: () => void): void {
  if (findOnPath(tool)) describe(title, body);
  else if (onCi())
    describe(title, () => {
      it(`needs ${tool}`, () => {
        throw new Error(missingOnCiMessage(tool));
      });
    });
  else describe.skip(title, body);
}

/** `it` when `tool` is on PATH; otherwise as describeWithTool (failing on CI, skipped locally). */
export function itWithTool(
  tool: RequiredTool,
  title: string,
  fn: (executable: string) => Promise<void>,
  timeoutMs?: number,
): void {
  const executable = findOnPath(tool);
  if (executable) it(title, () => fn(executable), timeoutMs);
  else if (onCi())
    it(title, () => {
      throw new Error(missingOnCiMessage(tool));
    });
  else it.skip(title, () => fn(''));
}
