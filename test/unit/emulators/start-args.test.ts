import { locatePubSubEmulator } from '../../../emulators/pubsub/locate';
import { parseStartArgs } from '../../../emulators/pullsecret/stack/start-args';
import { convergedSummary } from '../../../emulators/pullsecret/stack/summary';

describe('npm start arguments', () => {
  it('takes durations with a unit, and a bare number as seconds', () => {
    expect(parseStartArgs([]).timeoutMs).toBe(180_000);
    expect(parseStartArgs(['--timeout', '2m']).timeoutMs).toBe(120_000);
    expect(parseStartArgs(['--timeout', '90']).timeoutMs).toBe(90_000);
    expect(parseStartArgs(['--timeout=500ms']).timeoutMs).toBe(500);
  });

  it.each([['--timeout', 'banana'], ['--timeout=-1s'], ['--bogus'], ['extra']])(
    'rejects %s',
    (...args) => expect(() => parseStartArgs(args)).toThrow(/not a duration|unknown|unexpected/),
  );
});

describe('PUBSUB_EMULATOR_BIN', () => {
  it('set to a file that does not exist is an error naming it, not a silent fallback', () => {
    expect(() =>
      locatePubSubEmulator({
        PUBSUB_EMULATOR_BIN: '/nowhere/cloud-pubsub-emulator',
        PATH: process.env.PATH,
      }),
    ).toThrow('PUBSUB_EMULATOR_BIN is set to /nowhere/cloud-pubsub-emulator, which does not exist');
  });
});

describe('the summary after convergence', () => {
  const d = {
    kubeconfig: '/w/.local/kubeconfig',
    workDir: '/w/.local',
    logDir: '/w/.local/logs',
    endpoints: { hyperfleetApi: 'http://127.0.0.1:1' } as never,
    env: { HYPERFLEET_API_AUTH_TOKEN_PATH: '/w/.local/hyperfleet-api-token' },
    managementClusters: {
      'mgmt-1': {
        kubeconfig: '/w/.local/kube/mgmt-1/kubeconfig',
        endpoint: 'https://127.0.0.1:3',
        mode: 'ip' as const,
        jobAccess: { endpoint: 'https://127.0.0.1:3', caCert: 'PEM' },
      },
      'mgmt-2': {
        kubeconfig: '/w/.local/kube/mgmt-2/kubeconfig',
        endpoint: 'https://127.0.0.1:4',
        mode: 'connect-gateway' as const,
        jobAccess: {
          endpoint: 'https://localhost:5/v1/projects/1/locations/global/gkeMemberships/mgmt-2',
        },
      },
    },
  };
  const cluster = {
    id: 'c1',
    managementCluster: 'mgmt-2',
    namespace: 'clusters-c1',
    secretName: 'c1-pull-secret',
  };

  it('--once: no commands for a stack that is about to stop', () => {
    const text = convergedSummary(d, cluster, 9500, { once: true, cwd: '/w' });
    expect(text).toContain('Converged in 9.5 s');
    expect(text).not.toMatch(/kubectl|curl|Look for yourself|cat /);
    expect(text).toContain('Logs stay in .local/logs');
    // Traces outlive the stack: the one command that still works after it stopped.
    expect(text).toContain('npm run -s trace -- c1 still draws its reconcile');
  });

  it('still running: the console and the commands to look for yourself', () => {
    const text = convergedSummary(d, cluster, 9500, {
      once: false,
      cwd: '/w',
      consoleUrl: 'http://127.0.0.1:2/',
    });
    expect(text).toContain('Console: http://127.0.0.1:2/');
    expect(text).toContain(
      'kubectl --kubeconfig .local/kube/mgmt-2/kubeconfig get secret -n clusters-c1 c1-pull-secret',
    );
    expect(text).toContain('Kubernetes Secret is in mgmt-2 clusters-c1/c1-pull-secret');
    expect(text).toContain('npm run -s wait -- c1 --condition Ready');
    expect(text).toMatch(/^ {2}npm run -s trace -- c1 +# its latest reconcile as a waterfall/m);
    expect(text).toMatch(
      /^ {2}npm run -s doctor -- --all-projects +# checks the deployment end to end/m,
    );
  });
});
