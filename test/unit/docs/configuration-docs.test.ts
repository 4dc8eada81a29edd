// The documentation is the users' reference: its configuration tables, exit codes, example
// preconditions and Terraform variables are checked against the code, so the pages cannot drift
// from it. The tables live in docs/configuration.md and docs/deployment.md; README.md keeps the
// two commands.
import fs from 'node:fs';
import path from 'node:path';
import type * as z from 'zod';
import { adapterEnvSchema } from '../../../functions/adapter/config/config';
import {
  compilePreconditions,
  evaluatePreconditions,
} from '../../../functions/adapter/decision/preconditions';
import { reporterEnvSchema } from '../../../functions/reporter/config/config';
import { localStackEnvSchema } from '../../../emulators/pullsecret/stack/config';
import { hyperFleetApiEnvShape } from '../../../shared/hyperfleet/config';
import { EXIT_CODES } from '../../../shared/job-result';
import { jobEnvSchema } from '../../../functions/pull-secret-job/config/config';
import { doctorEnvSchema } from '../../../functions/pull-secret-job/doctor/doctor-config';
import YAML from 'yaml';
import { readDoc, tableAfter } from '../../helpers/docs';

const ROOT = path.resolve(__dirname, '../../..');
const README = readDoc('README.md');
const CONFIGURATION = 'docs/configuration.md';
const DEPLOYMENT = 'docs/deployment.md';
const configurationTable = (heading: string) => tableAfter(CONFIGURATION, heading);

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Variable names documented in a table, with `HYPERFLEET_API_*` standing for the shared ones. */
function documentedVariables(rows: string[][]): Map<string, string> {
  const variables = new Map<string, string>();
  for (const [names = '', defaults = ''] of rows) {
    for (const name of backticked(names)) {
      if (name === 'HYPERFLEET_API_*')
        Object.keys(hyperFleetApiEnvShape).forEach((key) => variables.set(key, 'see above'));
      else variables.set(name, defaults);
    }
  }
  return variables;
}

type Shape = Record<string, z.ZodType>;

/** The documented default, read through the variable's own schema, must be the schema's default. */
function expectDefaultsMatch(shape: Shape, variables: Map<string, string>): void {
  for (const [name, cell] of variables) {
    const schema = shape[name]!;
    const [value] = backticked(cell);
    const withoutValue = schema.safeParse(undefined);
    if (cell.startsWith('required')) {
      expect({ name, accepted: withoutValue.success }).toEqual({ name, accepted: false });
    } else if (cell.startsWith('—') || cell.startsWith('*override*')) {
      expect({ name, value: withoutValue.data }).toEqual({ name, value: undefined });
    } else if (value !== undefined && !value.includes('{')) {
      expect({ name, value: schema.parse(value) }).toEqual({ name, value: withoutValue.data });
    }
  }
}

describe('docs/configuration.md', () => {
  const hyperfleet = documentedVariables(
    configurationTable('### HyperFleet API (adapter, reporter and job)'),
  );
  const inherited = new Map([...hyperfleet].filter(([name]) => name !== 'HYPERFLEET_API_BASE_URL'));

  it('documents exactly the variables the adapter reads, with their real defaults', () => {
    const documented = new Map([
      ...hyperfleet,
      ...documentedVariables(configurationTable('### Adapter function')),
    ]);
    expect([...documented.keys()].sort()).toEqual(Object.keys(adapterEnvSchema.shape).sort());
    expectDefaultsMatch(adapterEnvSchema.shape, documented);
  });

  it('documents exactly the variables the reporter reads, with their real defaults', () => {
    const own = documentedVariables(configurationTable('### Reporter function'));
    own.delete('LOG_LEVEL');
    own.delete('LOG_FORMAT');
    own.delete('GOOGLE_CLOUD_PROJECT');
    const documented = new Map([...hyperfleet, ...own]);
    const names = [...documented.keys(), 'LOG_LEVEL', 'LOG_FORMAT', 'GOOGLE_CLOUD_PROJECT'];
    expect(names.sort()).toEqual(Object.keys(reporterEnvSchema.shape).sort());
    expectDefaultsMatch(reporterEnvSchema.shape, documented);
  });

  it('documents exactly the variables the job reads, with their real defaults', () => {
    const documented = documentedVariables(configurationTable('### Pull secret job'));
    documented.delete('LOG_LEVEL');
    documented.delete('LOG_FORMAT');
    const names = [...documented.keys(), 'LOG_LEVEL', 'LOG_FORMAT'];
    expect(names.sort()).toEqual(Object.keys(jobEnvSchema.shape).sort());
    for (const name of Object.keys(hyperFleetApiEnvShape)) documented.delete(name);
    expectDefaultsMatch(jobEnvSchema.shape, new Map([...documented, ...inherited]));
  });

  it("documents the variables only the doctor reads (beyond the job's), with their real defaults", () => {
    const documented = documentedVariables(
      configurationTable('#### Variables only the doctor reads'),
    );
    const beyondTheJob = Object.keys(doctorEnvSchema.shape).filter(
      (name) => !(name in jobEnvSchema.shape),
    );
    expect([...documented.keys()].sort()).toEqual(beyondTheJob.sort());
    documented.delete('CLOUD_RUN_JOB');
    expectDefaultsMatch(doctorEnvSchema.shape, documented);
  });

  it('documents exactly the variables the local stack reads, with their real defaults', () => {
    const documented = documentedVariables(configurationTable('### Local stack'));
    expect([...documented.keys()].sort()).toEqual(Object.keys(localStackEnvSchema.shape).sort());
    expectDefaultsMatch(localStackEnvSchema.shape, documented);
  });

  it('lists the job exit codes the code uses', () => {
    const rows = configurationTable('#### Exit codes');
    expect(rows.map(([code]) => Number(code)).sort()).toEqual(Object.values(EXIT_CODES).sort());
  });
});

describe('documented examples', () => {
  it('gives two commands that exist: npm start and npm test', () => {
    const scripts = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(README).toContain('npm start ');
    expect(README).toContain('npm ci && npm test');
    expect(scripts.start).toBeDefined();
    expect(scripts.test).toBeDefined();
  });

  it('has preconditions that compile and decide as described', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(readDoc(CONFIGURATION))?.[1];
    const compiled = compilePreconditions(YAML.parse(block ?? '') as never);
    const cluster = (labels: Record<string, string>) => ({ generation: 2, labels, spec: {} });
    const dns = (status: 'True' | 'False') => ({
      observed_generation: 2,
      conditions: [{ type: 'Available', status }],
    });
    const context = (labels: Record<string, string>, statuses: Record<string, unknown>) => ({
      cluster: cluster(labels),
      statuses,
      event: {},
      pullSecret: { inSpec: true, additionalInSpec: false, defaultConfigured: false },
    });
    expect(evaluatePreconditions(compiled, context({}, { dns: dns('True') }))).toEqual({
      kind: 'met',
    });
    expect(evaluatePreconditions(compiled, context({}, { dns: dns('False') }))).toMatchObject({
      kind: 'not-met',
      name: 'dnsAvailable',
    });
    expect(
      evaluatePreconditions(compiled, context({ hibernating: 'true' }, { dns: dns('True') })),
    ).toMatchObject({ kind: 'not-met', name: 'notHibernating' });
  });

  it('names every Terraform variable of the module in the deployment table', () => {
    const variablesTf = fs.readFileSync(
      path.join(ROOT, 'terraform/modules/pullsecret-adapter/variables.tf'),
      'utf8',
    );
    const declared = [...variablesTf.matchAll(/^variable "([a-z_]+)"/gm)].map((m) => m[1]!);
    const documented = tableAfter(
      DEPLOYMENT,
      '**Variables** (all typed, validated and described in `variables.tf`):',
    ).flatMap(([names = '']) => backticked(names));
    expect(documented.sort()).toEqual(declared.sort());
  });
});
