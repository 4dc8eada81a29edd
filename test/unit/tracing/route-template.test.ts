import { routeTemplate } from '../../../shared/hyperfleet/tracing';

describe('routeTemplate', () => {
  it.each([
    ['/clusters/abc', '/api/hyperfleet/v1/clusters/{cluster_id}'],
    ['/clusters/abc/statuses?page=2&size=100', '/api/hyperfleet/v1/clusters/{cluster_id}/statuses'],
    ['/clusters?search=x', '/api/hyperfleet/v1/clusters'],
    ['/clusters', '/api/hyperfleet/v1/clusters'],
    [
      '/clusters/abc/nodepools/np-1/statuses',
      '/api/hyperfleet/v1/clusters/{cluster_id}/nodepools/{nodepool_id}/statuses',
    ],
  ])('%s -> %s', (path, template) => {
    expect(routeTemplate('/api/hyperfleet/v1', path)).toBe(template);
  });
});
