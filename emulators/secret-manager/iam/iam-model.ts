import type { Principal } from '../../common/google-caller';
import { compileCondition, type Condition, type ResourceAttributes } from './condition';
import {
  BINDING_RESOURCE,
  bindingSchema,
  iamConfigSchema,
  type IamBinding,
  type IamConfig,
  type IamConfigInput,
} from './iam-config';
import { PREDEFINED_ROLES } from './roles';

/** What a permission is checked on: a project, a secret, or a secret version. */
export interface IamTarget {
  /** The project id or number, as the request names it. */
  readonly project: string;
  readonly secret?: string;
  readonly version?: string;
}

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
 * Allow policies and their evaluation, as IAM evaluates them for Secret Manager
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

  /** The subset of `permissions` the principal holds on the target. */
  held(principal: Principal, target: IamTarget, permissions: readonly string[]): string[] {
    const project = this.projectId(target.project);
    if (project === undefined) return [];
    const attributes = this.attributesOf(target, project);
    const applicable = this.compiled.filter(({ binding, condition }) => {
      const where = BINDING_RESOURCE.exec(binding.resource)!;
      const onTarget = where[2] === undefined || where[2] === target.secret;
      return (
        where[1] === project &&
        onTarget &&
        binding.members.some((m) => principal.members.includes(m)) &&
        (condition === undefined || condition(attributes))
      );
    });
    const granted = new Set(applicable.flatMap(({ binding }) => this.permissionsOf(binding.role)));
    return permissions.filter((permission) => granted.has(permission));
  }

  private permissionsOf(role: string): readonly string[] {
    return PREDEFINED_ROLES[role] ?? this.config.customRoles[role] ?? [];
  }

  /** Resource attributes as conditions see them: Secret Manager names resources by project number. */
  private attributesOf(target: IamTarget, project: string): ResourceAttributes {
    const base = `projects/${this.config.projects[project]!}`;
    if (target.secret === undefined)
      return { type: 'cloudresourcemanager.googleapis.com/Project', name: base };
    const secret = `${base}/secrets/${target.secret}`;
    if (target.version === undefined)
      return { type: 'secretmanager.googleapis.com/Secret', name: secret };
    return {
      type: 'secretmanager.googleapis.com/SecretVersion',
      name: `${secret}/versions/${target.version}`,
    };
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
