import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs real Terraform on a module that needs no provider (such as
 * terraform/modules/pullsecret-adapter/modules/management-clusters): nothing is downloaded, no
 * credentials are used, so validations, preconditions, templates and expressions are evaluated
 * exactly as `terraform plan` evaluates them for an operator.
 */

function terraformEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: os.tmpdir(),
    // No CLI config, no version check over the network, no prompts.
    TF_CLI_CONFIG_FILE: '/dev/null',
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
  };
}

export interface TerraformResult {
  /** true when the apply succeeded. */
  readonly ok: boolean;
  /** The module's outputs (empty when the apply failed). */
  readonly outputs: Record<string, unknown>;
  /** Everything Terraform printed, colourless: errors and warnings with their messages. */
  readonly diagnostics: string;
}

/**
 * A throwaway root module that calls `moduleDir` with the given input variable names (each passed
 * through from a root variable of type any) and re-exports all its outputs.
 */
export class TerraformModuleHarness {
  private readonly dir: string;

  constructor(moduleDir: string, inputs: readonly string[]) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pullsecret-tf-'));
    // A relative source is used in place (an absolute one would be copied, losing ../ templates).
    const source = path.relative(this.dir, moduleDir);
    const variables = inputs.map(
      (name) => `variable "${name}" {\n  type    = any\n  default = null\n}\n`,
    );
    const call = inputs.map((name) => `  ${name} = var.${name}`).join('\n');
    fs.writeFileSync(
      path.join(this.dir, 'main.tf'),
      `${variables.join('\n')}\nmodule "under_test" {\n  source = "${source}"\n${call}\n}\n\noutput "all" {\n  value = module.under_test\n}\n`,
    );
    this.run(['init', '-input=false', '-no-color', '-backend=false']);
  }

  /** `terraform apply` with these input values (no resources: only outputs are computed). */
  apply(values: Record<string, unknown>): TerraformResult {
    fs.writeFileSync(path.join(this.dir, 'case.tfvars.json'), JSON.stringify(values));
    const apply = this.run([
      'apply',
      '-auto-approve',
      '-input=false',
      '-no-color',
      '-var-file=case.tfvars.json',
    ]);
    if (apply.status !== 0) return { ok: false, outputs: {}, diagnostics: apply.text };
    const output = this.run(['output', '-no-color', '-json', 'all']);
    if (output.status !== 0) throw new Error(`terraform output failed: ${output.text}`);
    return {
      ok: true,
      outputs: JSON.parse(output.stdout) as Record<string, unknown>,
      diagnostics: apply.text,
    };
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private run(args: readonly string[]): TerraformCommandResult {
    return runTerraform(this.dir, args);
  }
}

export interface TerraformCommandResult {
  readonly status: number | null;
  readonly stdout: string;
  /** stdout and stderr, colourless and on one line: errors and warnings with their messages. */
  readonly text: string;
}

/** Runs terraform in `dir` offline (no CLI config, no checkpoint, no prompts). */
export function runTerraform(dir: string, args: readonly string[]): TerraformCommandResult {
  const result = spawnSync('terraform', args, {
    cwd: dir,
    env: terraformEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  // Terraform wraps long messages; one line per paragraph makes them searchable.
  const text = `${result.stdout}\n${result.stderr}`.replace(/[│╷╵]/g, '').replace(/\s+/g, ' ');
  return { status: result.status, stdout: result.stdout, text };
}

/**
 * A throwaway root module of the given files, initialised without a backend: for configurations
 * that use only Terraform's built-in provider (terraform_data, terraform_remote_state), whose whole
 * lifecycle (apply, plan, destroy) then runs offline.
 */
export class TerraformRoot {
  readonly dir: string;

  constructor(files: Record<string, string>) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pullsecret-tf-root-'));
    this.write(files);
    const init = this.run('init', '-input=false', '-no-color');
    if (init.status !== 0) throw new Error(`terraform init failed: ${init.text}`);
  }

  write(files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files))
      fs.writeFileSync(path.join(this.dir, name), text);
  }

  run(...args: string[]): TerraformCommandResult {
    return runTerraform(this.dir, args);
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
