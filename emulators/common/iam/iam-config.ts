import * as z from 'zod';

/**
 * A resource that holds an allow policy: `projects/ID` or a resource under it
 * (`projects/ID/secrets/SECRET`, `projects/ID/locations/L/jobs/JOB`, `projects/ID/locations/L/queues/Q`):
 * the project by id, then collection/id pairs. Match group 1 is the project id, 2 the rest.
 */
export const BINDING_RESOURCE =
  /^projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])((?:\/[a-zA-Z]+\/[A-Za-z0-9_.@-]{1,255})*)$/;

/** One role binding of an allow policy, as Terraform's google_*_iam_member writes it. */
export const bindingSchema = z.object({
  resource: z
    .string()
    .regex(
      BINDING_RESOURCE,
      'must be projects/ID or a resource under it (projects/ID/COLLECTION/ID...)',
    ),
  role: z.string().regex(/^(roles\/[A-Za-z.]+|projects\/[^/]+\/roles\/[A-Za-z0-9_.]+)$/),
  members: z
    .array(z.string().regex(/^(serviceAccount|user|group):[^\s]+$|^allAuthenticatedUsers$/))
    .min(1),
  condition: z
    .object({
      title: z.string().optional(),
      description: z.string().optional(),
      expression: z.string().min(1),
    })
    .optional(),
});
export type IamBinding = z.infer<typeof bindingSchema>;

/**
 * The IAM a Google API emulator knows (file `--iam-file`, admin `PUT /_emulator/iam`): the
 * projects (id -> number: conditions name resources by project number), custom roles, service
 * accounts by numeric unique id (a token without the userinfo.email scope names only that id in
 * token info, while IAM still knows its account), and the bindings.
 */
export const iamConfigSchema = z.object({
  projects: z.record(z.string(), z.string().regex(/^[1-9][0-9]{0,18}$/, 'a project number')),
  customRoles: z.record(z.string(), z.array(z.string()).min(1)).default({}),
  serviceAccounts: z.record(z.string(), z.email()).default({}),
  bindings: z.array(bindingSchema).default([]),
});
export type IamConfig = z.output<typeof iamConfigSchema>;
export type IamConfigInput = z.input<typeof iamConfigSchema>;
