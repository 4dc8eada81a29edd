import type { PutStatusOutcome } from './client';
import type { AdapterStatus, AdapterStatusRequest, Cluster } from './schemas';

/** The HyperFleet API operations the functions and the job use (implemented by HyperFleetClient). */
export interface HyperFleetApi {
  /** The cluster, or undefined when it does not exist (404). */
  findCluster(id: string): Promise<Cluster | undefined>;
  listStatuses(clusterId: string): Promise<AdapterStatus[]>;
  putStatus(clusterId: string, body: AdapterStatusRequest): Promise<PutStatusOutcome>;
}
