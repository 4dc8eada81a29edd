import type { Principal } from '../google-caller';
import { compileCondition, type Condition, type ResourceAttributes } from './condition';
import {
  bindingSchema,
  iamConfigSchema,
  type IamBinding,
  type IamConfig,
  type IamConfigInput,
} from './iam-config';
import { PREDEFINED_ROLES } from './roles';

/**
 * The resource type IAM Conditions see for the last collection of a resource name
 * (https://cloud.google.com/iam/docs/conditions-resource-attributes#resource-type), by the
 * collection the name ends in; a bare project is `cloudresourcemanager.googleapis.com/Project`.
 */
const RESOURCE_TYPES: Readonly<Record<string, string>> = {
  secrets: 'secretmanager.googleapis.com/Secret',
  versions: 'secretmanager.googleapis.com/SecretVersion',
  jobs: 'run.googleapis.com/Job',
  executions: 'run.googleapis.com/Execution',
  tasks: 'run.googleapis.com/Task',
  queues: 'cloudtasks.googleapis.com/Queue',
  clusters: 'container.googleapis.com/Cluster',
  serviceAccounts: 'iam.googleapis.com/ServiceAccount',
};

/** A resource name split into its project (id or number, as written) and the path below it. */
const RESOURCE_NAME = /^projects\/([^/]+)((?:\/[^/]+\/[^/]+)*)$/;

interface CompiledBinding {
  readonly binding: IamBinding;
  readonly condition?: Condition;
}

/** A binding to remove one member from (the admin API's DELETE). */
export interface MemberRemoval {
  readonly resource: string;
  readonly role: string;
  readonly member: string;
}

/**
 * Allow policies and their evaluation, as IAM evaluates them (here for Secret Manager, Cloud Run,
 * Cloud Tasks and GKE)
 * (https://cloud.google.com/iam/docs/allow-policies, "Policy inheritance"; Secret Manager: "IAM
 * roles can't be granted on a secret version. Permissions on SecretVersions are enforced according
 * to the policy set on the associated Secret"): a permission is held on a resource when a binding
 * on it or on an ancestor (the project) names the principal, its role holds the permission, and
 * its condition, if any, is true for the resource checked.
 */
export class IamModel {
  private config: IamConfig;
  private compiled: CompiledBinding[];

  constructor(input: IamConfigInput) {
    this.config = iamConfigSchema.parse(input);
    this.compiled = this.compile(this.config.bindings, this.config.customRoles);
  }

  /** The configuration now (bindings included), for the admin API and tests. */
  snapshot(): IamConfig {
    return structuredClone(this.config);
  }

  replace(input: unknown): void {
    const config = iamConfigSchema.parse(input);
    this.compiled = this.compile(config.bindings, config.customRoles);
    this.config = config;
  }

  addBinding(input: unknown): void {
    const binding = bindingSchema.parse(input);
    this.compiled = [...this.compiled, ...this.compile([binding], this.config.customRoles)];
    this.config.bindings.push(binding);
  }

  /** Removes `member` from every binding of `role` on `resource`; returns how many held it. */
  removeMember(removal: MemberRemoval): number {
    let removed = 0;
    const bindings = this.config.bindings.flatMap((binding) => {
      if (binding.resource !== removal.resource || binding.role !== removal.role) return [binding];
      if (!binding.members.includes(removal.member)) return [binding];
      removed++;
      const members = binding.members.filter((m) => m !== removal.member);
      return members.length > 0 ? [{ ...binding, members }] : [];
    });
    this.config.bindings = bindings;
    this.compiled = this.compile(bindings, this.config.customRoles);
    return removed;
  }

  /** The project's id for an id or a number, or undefined when the project is unknown. */
  projectId(idOrNumber: string): string | undefined {
    if (idOrNumber in this.config.projects) return idOrNumber;
    return Object.entries(this.config.projects).find(([, number]) => number === idOrNumber)?.[0];
  }

  /** The project's number for an id or a number, or undefined when the project is not configured. */
  projectNumber(idOrNumber: string): string | undefined {
    const id = this.projectId(idOrNumber);
    return id === undefined ? undefined : this.config.projects[id];
  }

  /** The email of a service account known by its numeric unique id. */
  serviceAccountEmail(uniqueId: string): string | undefined {
    return this.config.serviceAccounts[uniqueId];
  }

  /**
   * The subset of `permissions` the principal holds on `resource` (`projects/{id|number}/...`): a
   * binding applies when it is on the resource or an ancestor (policy inheritance: a secret's
   * versions, a job's executions, the project's everything), names the principal, and its
   * condition holds for the resource. Unknown projects and malformed names hold nothing.
   */
  held(principal: Principal, resource: string, permissions: readonly string[]): string[] {
    const match = RESOURCE_NAME.exec(resource);
    const project = match ? this.projectId(match[1]!) : undefined;
    if (!match || project === undefined) return [];
    const canonical = `projects/${project}${match[2]!}`;
    const attributes = this.attributesOf(project, match[2]!);
    const applicable = this.compiled.filter(({ binding, condition }) => {
      const on = binding.resource;
      return (
        (canonical === on || canonical.startsWith(`${on}/`)) &&
        binding.members.some((m) => principal.members.includes(m)) &&
        (condition === undefined || condition(attributes))
      );
    });
    const granted = new Set(applicable.flatMap(({ binding }) => this.permissionsOf(binding.role)));
    return permissions.filter((permission) => granted.has(permission));
  }

  /** Whether the configuration knows the project (by id or number). */
  knowsProject(idOrNumber: string): boolean {
    return this.projectId(idOrNumber) !== undefined;
  }

  private permissionsOf(role: string): readonly string[] {
    return PREDEFINED_ROLES[role] ?? this.config.customRoles[role] ?? [];
  }

  /**
   * Resource attributes as conditions see them: the type of the last collection, and the name
   * with the project NUMBER (as Secret Manager names its resources to IAM; the other services'
   * grants here carry no condition).
   */
  private attributesOf(project: string, below: string): ResourceAttributes {
    const name = `projects/${this.config.projects[project]!}${below}`;
    const collection = below.split('/').at(-2);
    const type =
      collection === undefined
        ? 'cloudresourcemanager.googleapis.com/Project'
        : (RESOURCE_TYPES[collection] ?? `unknown/${collection}`);
    return { type, name };
  }

  private compile(
    bindings: readonly IamBinding[],
    customRoles: IamConfig['customRoles'],
  ): CompiledBinding[] {
    return bindings.map((binding) => {
      if (!(binding.role in PREDEFINED_ROLES) && !(binding.role in customRoles))
        throw new Error(
          `binding on ${binding.resource}: role ${binding.role} is neither a predefined role this emulator knows (${Object.keys(PREDEFINED_ROLES).join(', ')}) nor a custom role of the configuration`,
        );
      if (!binding.condition) return { binding };
      return { binding, condition: compileCondition(binding.condition.expression) };
    });
  }
}
