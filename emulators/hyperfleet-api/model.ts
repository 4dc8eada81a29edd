/** Condition status values of the HyperFleet API. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A condition as an adapter reports it and the API stores it. */
export interface StoredAdapterCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  last_transition_time: string;
}

/** One adapter's status report on a cluster. */
export interface StoredAdapterStatus {
  adapter: string;
  observed_generation: number;
  observed_time: string;
  conditions: StoredAdapterCondition[];
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  created_time: string;
  last_report_time: string;
}

/** An aggregated cluster condition (ResourceCondition in the spec). */
export interface StoredClusterCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observed_generation: number;
  created_time: string;
  last_updated_time: string;
  last_transition_time: string;
}

/** A cluster as the emulator keeps it. */
export interface StoredCluster {
  id: string;
  name: string;
  labels: Record<string, string>;
  spec: Record<string, unknown>;
  generation: number;
  created_time: string;
  updated_time: string;
  created_by: string;
  updated_by: string;
  deleted_time?: string;
  deleted_by?: string;
  conditions: StoredClusterCondition[];
  statuses: Map<string, StoredAdapterStatus>;
}
