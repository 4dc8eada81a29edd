import * as z from 'zod';
import { invalid, type FieldError } from './problem';

// The API validates `spec` against its provider schema (OPENAPI_SCHEMA_PATH); the core schema
// accepts any object. This is `ClusterSpec` of the GCP provider spec
// (shared/contracts/hyperfleet-api-gcp-v1.0.17.openapi.yaml), the shape this project's clusters
// use; test/integration/hyperfleet/emulator-rules.test.ts checks it against that file with Ajv.
// Like the OpenAPI schema, unknown properties are allowed (e.g. spec.pullSecret).

const clusterPlatform = z.looseObject({
  projectID: z.string().optional(),
  region: z.string().optional(),
  zone: z.string().optional(),
  network: z.string().optional(),
  subnet: z.string().optional(),
});

const gcpClusterSpec = z.looseObject({
  infraID: z.string().optional(),
  platform: z.looseObject({ type: z.enum(['gcp']), gcp: clusterPlatform }),
  release: z
    .looseObject({
      image: z.string().optional(),
      version: z.string().optional(),
      channelGroup: z.string().optional(),
    })
    .optional(),
  networking: z
    .looseObject({
      clusterNetwork: z
        .array(
          z.looseObject({ cidr: z.string().optional(), hostPrefix: z.number().int().optional() }),
        )
        .optional(),
      serviceNetwork: z.array(z.string()).optional(),
    })
    .optional(),
  dns: z.looseObject({ baseDomain: z.string().optional() }).optional(),
});

/** Which provider schema the emulator enforces: `any` (the core spec's default) or `gcp`. */
export type ClusterSpecSchema = 'any' | 'gcp';

function constraintOf(issue: z.core.$ZodIssue): FieldError['constraint'] {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required';
  if (issue.code === 'invalid_value') return 'enum';
  return 'format';
}

/** Throws the API's 400 (one field error per problem, paths from `spec`) when `spec` does not fit. */
export function validateClusterSpec(spec: unknown, schema: ClusterSpecSchema): void {
  if (schema === 'any') return;
  const parsed = gcpClusterSpec.safeParse(spec, { reportInput: true });
  if (parsed.success) return;
  const errors: FieldError[] = parsed.error.issues.map((issue) => ({
    field: ['spec', ...issue.path.map(String)].join('.'),
    constraint: constraintOf(issue),
    message: issue.message,
  }));
  throw invalid(
    `Invalid cluster spec: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    errors,
  );
}
