import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const INSTALL_HINT =
  "Google's Pub/Sub emulator is not installed. Install it with `gcloud components install pubsub-emulator` " +
  '(or `apt-get install google-cloud-cli-pubsub-emulator` where the SDK came from apt), or set PUBSUB_EMULATOR_BIN ' +
  'to the cloud-pubsub-emulator script. It also needs Java 11 or later.';

/** The emulator's launcher script: PUBSUB_EMULATOR_BIN, else inside the Cloud SDK that `gcloud` belongs to. */
export function locatePubSubEmulator(env: NodeJS.ProcessEnv = process.env): string {
  const candidates: string[] = [];
  // Set but wrong is a mistake to report, not a reason to quietly use another emulator.
  if (env.PUBSUB_EMULATOR_BIN) {
    if (!fs.existsSync(env.PUBSUB_EMULATOR_BIN))
      throw new Error(
        `PUBSUB_EMULATOR_BIN is set to ${env.PUBSUB_EMULATOR_BIN}, which does not exist. Point it at the ` +
          'cloud-pubsub-emulator script (…/platform/pubsub-emulator/bin/cloud-pubsub-emulator) or unset it to use the Cloud SDK on PATH.',
      );
    candidates.push(env.PUBSUB_EMULATOR_BIN);
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    const gcloud = path.join(dir, 'gcloud');
    if (!fs.existsSync(gcloud)) continue;
    const sdkRoot = path.resolve(path.dirname(fs.realpathSync(gcloud)), '..');
    candidates.push(path.join(sdkRoot, 'platform/pubsub-emulator/bin/cloud-pubsub-emulator'));
  }
  candidates.push('/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator');
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error(INSTALL_HINT);
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error(`Java was not found on PATH. ${INSTALL_HINT}`);
  }
  return found;
}
