import fs from 'node:fs';
import path from 'node:path';
import { TERRAFORM_LAUNCH_RETRY } from '../../../emulators/pullsecret/stack/start-launch-queue';

const VARIABLES = path.join(
  __dirname,
  '../../../terraform/modules/pullsecret-adapter/variables.tf',
);

/** The default of one attribute of `launch_queue`'s object type, as written in variables.tf. */
function terraformDefault(attribute: string): string {
  const text = fs.readFileSync(VARIABLES, 'utf8');
  const block = text.slice(text.indexOf('variable "launch_queue"'));
  const match = new RegExp(`\\n\\s*${attribute}\\s*=\\s*optional\\([a-z]+, "?([^")]+)"?\\)`).exec(
    block,
  );
  if (!match) throw new Error(`variables.tf: launch_queue.${attribute} has no default`);
  return match[1]!;
}

describe("the local stack's launch queue", () => {
  it("retries as Terraform's launch_queue defaults make production's queue retry", () => {
    expect({
      maxAttempts: Number(terraformDefault('max_attempts')),
      minBackoff: terraformDefault('min_backoff'),
      maxBackoff: terraformDefault('max_backoff'),
      maxDoublings: Number(terraformDefault('max_doublings')),
    }).toEqual(TERRAFORM_LAUNCH_RETRY);
  });
});
