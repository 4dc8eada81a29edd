import type { Logger } from '../../shared/logging/logger';
import { loadTracingConfig } from '../../shared/tracing/config';
import { startTracing } from '../../shared/tracing/start';
import type { RunningEmulator } from '../common/emulator';

/**
 * Starts an emulator with tracing as the real service runs it: the standard OTEL_* variables
 * (the local stack points them at its own receiver), the global tracer provider the emulator's
 * spans go to, and a final flush when it stops. Without OTEL_TRACES_EXPORTER=otlp it records
 * nothing and costs nothing.
 */
export async function withTracing(
  env: NodeJS.ProcessEnv,
  serviceName: string,
  logger: Logger | undefined,
  start: () => Promise<RunningEmulator>,
): Promise<RunningEmulator> {
  const tracing = await startTracing(loadTracingConfig(env, serviceName), {
    ...(env.GOOGLE_CLOUD_PROJECT ? { projectId: env.GOOGLE_CLOUD_PROJECT } : {}),
    ...(logger ? { logger } : {}),
  });
  const emulator = await start();
  return {
    name: emulator.name,
    endpoint: emulator.endpoint,
    info: () => emulator.info(),
    stop: async () => {
      await emulator.stop();
      await tracing.shutdown();
    },
  };
}
