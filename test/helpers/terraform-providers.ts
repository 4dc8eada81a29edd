import path from 'node:path';
import {
  schemaOf,
  TERRAFORM_ROOT,
  type ProviderSchema,
  type SchemaBlock,
  type SnapshotSource,
  type TfBody,
  type TfModule,
} from './terraform';

/** A resource or data block of a module, with the provider it uses and that provider's schema of it. */
export interface ConfigBlock {
  kind: 'resources' | 'data_sources';
  type: string;
  /** For messages: "modules/x: google_y.z" or "modules/x: data.google_y.z". */
  where: string;
  body: TfBody;
  provider: string;
  /** undefined when the provider's snapshot does not have the type. */
  schema: SchemaBlock | undefined;
}

/**
 * The provider a block uses: its `provider` meta-argument (hcl2json gives `provider = google-beta`
 * as "${google-beta}", an alias as "${google-beta.alias}") or else its type's prefix, as Terraform
 * picks the default provider.
 */
export function providerOf(type: string, body: TfBody): string {
  const reference = /^\$\{([a-z0-9-]+)(?:\.[\w-]+)?\}$/.exec(String(body.provider ?? ''));
  return reference ? reference[1]! : type.split('_')[0]!;
}

/** Every resource and data block of `module`, each with the schema of the provider it uses. */
export function configBlocks(
  module: TfModule,
  schemas: Record<string, ProviderSchema>,
): ConfigBlock[] {
  const dir = path.relative(TERRAFORM_ROOT, module.dir);
  const entry = (
    kind: ConfigBlock['kind'],
    type: string,
    name: string,
    body: TfBody,
  ): ConfigBlock => {
    const provider = providerOf(type, body);
    const address = kind === 'resources' ? `${type}.${name}` : `data.${type}.${name}`;
    return {
      kind,
      type,
      where: `${dir}: ${address}`,
      body,
      provider,
      schema: schemaOf(schemas, kind, type, provider),
    };
  };
  return [
    ...module.resources.map((r) => entry('resources', r.type, r.name, r.body)),
    ...module.data.map((d) => entry('data_sources', d.type, d.name, d.body)),
  ];
}

/**
 * How the module's blocks pick their google provider: a type only google-beta has must set
 * `provider = google-beta` (the google provider would reject it), and a module using google-beta
 * must declare it in required_providers (else Terraform looks for hashicorp/google-beta only by
 * accident of the name, and a child module cannot receive it from the caller).
 */
export function providerProblems(
  module: TfModule,
  schemas: Record<string, ProviderSchema>,
): string[] {
  const betaOnly = schemas.google?.beta_only;
  const problems: string[] = [];
  for (const block of configBlocks(module, schemas)) {
    if (block.provider === 'google' && betaOnly?.[block.kind].includes(block.type))
      problems.push(
        `${block.where}: ${block.type} exists only in google-beta; set provider = google-beta`,
      );
    if (block.provider === 'google-beta') {
      const declared = module.requiredProviders['google-beta'];
      if (declared?.source !== 'hashicorp/google-beta')
        problems.push(
          `${block.where}: uses google-beta, which the module's required_providers (versions.tf) does not declare as hashicorp/google-beta`,
        );
    }
  }
  return problems;
}

/** "google 7.45.0 (v7.45.0, commit 6f756229ab21)" for a snapshot read from provider source; name and version otherwise. */
export function snapshotLabel(schema: ProviderSchema): string {
  const name = schema.provider.name?.split('/').pop() ?? String(schema.source);
  const version = schema.provider.version ?? '?';
  if (typeof schema.source === 'string') return `${name} ${version}`;
  return `${name} ${version} (${schema.source.tag}, commit ${schema.source.commit.slice(0, 12)})`;
}

/** The source record of a snapshot read from provider source; throws for a CDKTF one. */
export function snapshotSource(schema: ProviderSchema): SnapshotSource {
  if (typeof schema.source === 'string')
    throw new Error(`${schema.source} is not a snapshot read from provider source`);
  return schema.source;
}
