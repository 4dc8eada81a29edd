import { ConfigError } from '../../../shared/errors';
import { createLogger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { AccessTokenSource } from '../kubernetes/kubernetes-access';
import { refuseRedirects } from '../config/redirect-guard';
import { DOCTOR_USAGE, DoctorUsageError, parseDoctorArgs } from './doctor-args';
import { loadDoctorConfig } from './doctor-config';
import { metadataFact } from './metadata-facts';
import { renderReport, resultLine, tally } from './render';
import { runDoctor } from './run-doctor';

/** The doctor's exit codes: no check failed, one did, bad flags or configuration. */
export const DOCTOR_EXIT = { healthy: 0, failed: 1, usage: 2 } as const;

/**
 * `pull-secret doctor [FLAGS]`: checks a deployment end to end with the job's own environment and
 * identity, prints the table and the fixes, then the result as one JSON line. Loaded only for this
 * command (main.ts), so a run of the job never pays for it.
 */
export async function doctorMain(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  deps: {
    readonly argv0: string;
    readonly redactor: SecretRedactor;
    readonly token: AccessTokenSource;
  },
): Promise<number> {
  let args;
  try {
    args = parseDoctorArgs(argv);
  } catch (error) {
    if (!(error instanceof DoctorUsageError)) throw error;
    process.stderr.write(`pull-secret doctor: ${error.message}\n${DOCTOR_USAGE}\n`);
    return DOCTOR_EXIT.usage;
  }
  if (args.help) {
    process.stdout.write(`${DOCTOR_USAGE}\n`);
    return DOCTOR_EXIT.healthy;
  }
  let config;
  try {
    // As a run of the job: on Cloud Run, nothing may point the doctor elsewhere either.
    refuseRedirects(env, deps.argv0);
    config = loadDoctorConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return DOCTOR_EXIT.usage;
  }
  const logger = createLogger({
    component: 'pullsecret-doctor',
    level: 'error',
    format: 'json',
    redactor: deps.redactor,
    ...(config.platformProject ? { projectId: config.platformProject } : {}),
  });
  const [region, serviceAccount] = await Promise.all([
    metadataFact('instance/region', env),
    metadataFact('instance/service-accounts/default/email', env),
  ]);
  const results = await runDoctor({
    config,
    args,
    logger,
    redactor: deps.redactor,
    token: deps.token,
    ...(region ? { region } : {}),
    ...(serviceAccount ? { serviceAccount } : {}),
  });
  await logger.close();
  process.stdout.write(renderReport(results));
  process.stdout.write(`${resultLine(results)}\n`);
  return tally(results).fail > 0 ? DOCTOR_EXIT.failed : DOCTOR_EXIT.healthy;
}
