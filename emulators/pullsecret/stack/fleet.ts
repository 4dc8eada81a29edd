#!/usr/bin/env node
// `npm run -s fleet -- pause|resume|report|resync [FLAGS]`: the operator's fleet command
// (functions/fleet/, docs/operations.md "Operating the fleet: pause, resume, report, resync"). One command for production and the
// local stack: with `--stack FILE`, or when `.local/stack.json` exists and neither `--queue` nor
// `--hyperfleet-api` says otherwise, it acts on the running local stack, as the stack's operator
// (OPERATOR_IDENTITY's tokens, never a runtime identity's); otherwise on production, from flags,
// HYPERFLEET_API_* and LAUNCH_QUEUE, with Application Default Credentials.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { UsageError } from '../../../functions/fleet/args';
import { PubSub } from '@google-cloud/pubsub';
import { pubsubFleetRequests } from '../../../functions/fleet/requests/fleet-requests';
import { runFleet, type Connect } from '../../../functions/fleet/fleet';
import { productionConnect } from '../../../functions/fleet/production';
import { nullLogger } from '../../../shared/logging/null-logger';
import { localHyperFleetClient } from '../hyperfleet/local-hyperfleet-client';
import { OPERATOR_IDENTITY } from './layout';
import { operatorAccess, operatorClientOptions } from './operator-credentials';

const ROOT = path.resolve(__dirname, '../../../..');

/** What the command reads of stack.json (a running stack writes it; describe-stack.ts). */
const stackSchema = z.object({
  launchQueue: z.string().min(1),
  project: z.string().min(1),
  topics: z.object({ fleet: z.string().min(1) }),
  endpoints: z.object({
    pubsub: z.string().min(1),
    hyperfleetApi: z.string().min(1),
    cloudTasks: z.string().min(1),
    publicCaFile: z.string().min(1),
    operatorMetadata: z.string().min(1),
  }),
  env: z.object({ HYPERFLEET_API_AUTH_TOKEN_PATH: z.string().optional() }),
});

/** `.local/stack.json` where the user ran npm (INIT_CWD), else in the repository (as trace.ts). */
function defaultStackFile(): string {
  const here = path.join(process.env.INIT_CWD ?? process.cwd(), '.local', 'stack.json');
  return fs.existsSync(here) ? here : path.join(ROOT, '.local', 'stack.json');
}

function readStack(file: string): z.infer<typeof stackSchema> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`no running local stack: ${file} is missing (start one with npm start).`);
  }
  const parsed = stackSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new UsageError(`${file} is not a local stack's description.`);
  return parsed.data;
}

/** The local stack's endpoints, called as its operator: the HyperFleet API with the stack's token. */
const localConnect: (file: string) => Connect = (file) => () => {
  const d = readStack(file);
  // The client must not probe for a metadata server: the operator's token comes from its own
  // listener. (Production keeps ADC's own lookup: gcloud's credentials, or a VM's metadata server.)
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  let admin: CloudTasksClient | undefined;
  let pubsub: PubSub | undefined;
  const token = d.env.HYPERFLEET_API_AUTH_TOKEN_PATH;
  return {
    topic: d.topics.fleet,
    // The Pub/Sub emulator has no IAM: locally anyone may publish (Terraform grants it to fleet_operators).
    fleetRequests: () =>
      pubsubFleetRequests(
        (pubsub ??= new PubSub({
          projectId: d.project,
          apiEndpoint: d.endpoints.pubsub,
          emulatorMode: true,
        })),
        d.topics.fleet,
      ),
    where: `local stack ${path.relative(process.cwd(), file) || file}, as ${OPERATOR_IDENTITY}`,
    queue: d.launchQueue,
    queueAdmin: () =>
      (admin ??= new CloudTasksClient(
        operatorClientOptions(operatorAccess(d, d.endpoints.cloudTasks)),
      )),
    hyperfleet: () =>
      localHyperFleetClient(d.endpoints.hyperfleetApi, nullLogger, {
        ...(token ? { tokenFile: token } : {}),
        userAgent: 'pullsecret-fleet',
      }),
    close: async () => {
      await admin?.close();
      await pubsub?.close();
    },
  };
};

const connect: Connect = (command) => {
  const file = command.stack ?? defaultStackFile();
  const local =
    command.stack !== undefined ||
    (command.queue === undefined && command.hyperfleetApi === undefined && fs.existsSync(file));
  return local ? localConnect(file)(command) : productionConnect(process.env)(command);
};

runFleet(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    now: () => new Date(),
  },
  connect,
).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fleet: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 3;
  },
);
