import * as z from 'zod';

/** `projects/ID` (a project's allow policy) or `projects/ID/secrets/SECRET` (a secret's). */
export const BINDING_RESOURCE =
  /^projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])(?:\/secrets\/([A-Za-z0-9_-]{1,255}))?$/;

/** One role binding of an allow policy, as Terraform's google_*_iam_member writes it. */
export const bindingSchema = z.object({
  resource: z.string().regex(BINDING_RESOURCE, 'must be projects/ID or projects/ID/secrets/SECRET'),
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
 * The IAM the Secret Manager emulator knows (file `--iam-file`, admin `PUT /_emulator/iam`): the
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
