import fs from 'node:fs';
import * as z from 'zod';
import { nullLogger } from '../../../shared/logging/null-logger';
import type { Logger } from '../../../shared/logging/logger';
import type { RunningEmulator } from '../../common/emulator';
import { localHyperFleetClient } from '../hyperfleet/local-hyperfleet-client';
import { KubeReader } from '../../common/kube-admin';
import { HyperShiftSimulator } from './simulator';

/** `--management-clusters-file`: management cluster name -> the HyperShift adapter's kubeconfig. */
export const hyperShiftClustersSchema = z
  .record(z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/), z.string().min(1))
  .refine((clusters) => Object.keys(clusters).length > 0, 'names at least one management cluster');

export interface HyperShiftOptions {
  readonly hyperfleetBaseUrl: string;
  readonly hyperfleetTokenFile?: string;
  readonly clustersFile: string;
  readonly defaultCluster: string;
  readonly pollMs: number;
  readonly logger: Logger;
}

/** Runs the simulated HyperShift adapter until stopped: one pass every `pollMs`, never overlapping. */
export async function startHyperShift(options: HyperShiftOptions): Promise<RunningEmulator> {
  const kubeconfigs = hyperShiftClustersSchema.parse(
    JSON.parse(fs.readFileSync(options.clustersFile, 'utf8')),
  );
  if (!(options.defaultCluster in kubeconfigs))
    throw new Error(
      `--default-management-cluster ${options.defaultCluster} is not in ${options.clustersFile} (${Object.keys(kubeconfigs).join(', ')})`,
    );
  const simulator = new HyperShiftSimulator({
    api: localHyperFleetClient(options.hyperfleetBaseUrl, nullLogger, {
      ...(options.hyperfleetTokenFile ? { tokenFile: options.hyperfleetTokenFile } : {}),
      userAgent: 'local-hypershift',
    }),
    clusters: new Map(
      Object.entries(kubeconfigs).map(([name, file]) => [name, new KubeReader(file)]),
    ),
    defaultCluster: options.defaultCluster,
    logger: options.logger,
  });
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const loop = () => {
    pass = simulator
      .tick()
      .catch((error: unknown) =>
        options.logger.warn('HyperShift pass failed; retried on the next pass', {
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => {
        if (running) timer = setTimeout(loop, options.pollMs);
      });
  };
  loop();
  return {
    name: 'hypershift',
    // It serves nothing: it polls the HyperFleet API and calls the management clusters.
    endpoint: '',
    info: () => ({ name: 'hypershift', endpoint: '', clusters: Object.keys(kubeconfigs) }),
    stop: async () => {
      running = false;
      clearTimeout(timer);
      await pass;
    },
  };
}
