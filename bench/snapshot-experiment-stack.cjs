#!/usr/bin/env node
// Companion of bench/snapshot-experiment.cjs: starts the Secret Manager and Kubernetes emulators
// (from dist/, `npm run build` first) as bench/job-bench.ts does, and writes ENV_FILE, a shell file
// with the job's environment for an UNCHANGED run (generation 1, second launch attempt) of one
// cluster. Run the job once with it (the first run stores the secret), then time repeated runs: each
// finds the secret and the Kubernetes Secret up to date. Stops on SIGTERM / SIGINT.
//   node bench/snapshot-experiment-stack.cjs /tmp/job-snapshot/stack.env &
const fs = require('node:fs');
const path = require('node:path');
const { startSecretManagerEmulator } = require('../dist/emulators/secret-manager/server');
const { startKubeApiServerEmulator } = require('../dist/emulators/kube-apiserver/server');

async function main() {
  const envFile = path.resolve(process.argv[2] ?? '/tmp/job-snapshot/stack.env');
  const sm = await startSecretManagerEmulator();
  const kube = await startKubeApiServerEmulator({ namespaces: ['clusters-bench-0'] });
  const pullSecret = JSON.stringify({
    auths: { 'quay.io': { auth: Buffer.from('bench-user:password-1').toString('base64') } },
  });
  const env = {
    METADATA_SERVER_DETECTION: 'none',
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    GCP_PROJECT_ID: 'demo-bench',
    CLUSTER_ID: 'bench-0',
    PULL_SECRET_DATA: pullSecret,
    GENERATION: '1',
    LAUNCH_ATTEMPT: '2',
    CLOUD_RUN_EXECUTION: 'bench-job-unchanged-0',
    KUBECONFIG: kube.kubeconfigPath,
    MANAGEMENT_NAMESPACE: 'clusters-bench-0',
    LOG_LEVEL: 'warn',
    NODE_OPTIONS: '--max-semi-space-size=1',
  };
  fs.writeFileSync(
    envFile,
    Object.entries(env)
      .map(([k, v]) => `export ${k}='${v}'\n`)
      .join(''),
  );
  console.log(`stack up; environment in ${envFile}`);
  const stop = async () => {
    await sm.stop();
    await kube.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
