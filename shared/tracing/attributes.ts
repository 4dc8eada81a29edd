/**
 * Span attribute names shared by the adapter, the job and the reporter (one spelling everywhere,
 * so a trace query by cluster id finds all three). Values are ids, generations and reason codes:
 * never a pull secret, an auth string or a token.
 */
export const TRACE_ATTRIBUTES = {
  clusterId: 'hyperfleet.cluster.id',
  generation: 'hyperfleet.cluster.generation',
  decision: 'pullsecret.decision',
  reason: 'pullsecret.reason',
  outcome: 'pullsecret.outcome',
  managementCluster: 'pullsecret.management_cluster',
  execution: 'pullsecret.execution',
} as const;

/** OpenTelemetry HTTP client semantic conventions used on HyperFleet API spans. */
export const HTTP_ATTRIBUTES = {
  method: 'http.request.method',
  urlTemplate: 'url.template',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
} as const;
