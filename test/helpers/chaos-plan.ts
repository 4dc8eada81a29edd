// The chaos run's choices (test/faults/chaos.test.ts): a seeded PRNG, the faults it places on
// each cluster's calls and the schedule of actions. Pure: the same seed makes the same plan.
import type { FaultRuleInput, TakenFault } from '../../emulators/common/fault-injector';
import { spreadOver } from '../../emulators/pullsecret/hyperfleet/simulated-adapters';
import { MANAGEMENT_CLUSTERS } from '../../emulators/pullsecret/stack/layout';
import { CUSTOMER_PROJECT } from './stack';

/** The seed CI runs (CHAOS_SEED unset). */
export const DEFAULT_SEED = 3838;

/** CHAOS_SEED as a seed, or the default. */
export function seedFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_SEED;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`CHAOS_SEED must be an integer, not ${value}`);
  return seed;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The choices a seeded run makes. */
class Chooser {
  constructor(readonly random: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
  /** A version 4 UUID from the PRNG: the same seed names (and places) the same clusters. */
  uuid(): string {
    const bytes = Array.from({ length: 16 }, () => Math.floor(this.random() * 256));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

export type FaultComponent = 'secret-manager' | 'kube-apiserver' | 'hyperfleet-api';

/** One fault placed on one cluster's calls. */
export interface PlacedFault {
  readonly component: FaultComponent;
  /** What it is, for the run's summary (`AddSecretVersion lost`, `kube POST 409`...). */
  readonly label: string;
  readonly rule: FaultRuleInput;
}

/** A kind of fault; `family` is the call it hits (one fault per call and cluster). */
interface FaultKind {
  readonly family: string;
  readonly lost: boolean;
  readonly make: (id: string, c: Chooser) => PlacedFault;
}

const TRANSIENT = ['UNAVAILABLE', 'DEADLINE_EXCEEDED'] as const;
const TRANSIENT_OR_ABORTED = ['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'ABORTED'] as const;
/** The HyperFleet API timeout the chaos stack runs with; SLOW_MS is longer: the caller gives up and retries. */
export const API_TIMEOUT_MS = 1500;
const SLOW_MS = 2500;

export const secretPath = (id: string) =>
  `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`;
const secretsPath = (id: string) => `/api/v1/namespaces/clusters-${id}/secrets`;
const clusterPath = (id: string) => `/api/hyperfleet/v1/clusters/${id}`;

/**
 * Half the lost responses are of a slow call (performed after the delay, then answered with the
 * error): the effect lands while other executions go on, as when an answer is lost in a timeout.
 * Well under the job's deadlines (GCP_API_TIMEOUT 10 s, KUBERNETES_API_TIMEOUT 15 s).
 */
const slowness = (c: Chooser): number | undefined => (c.chance(0.5) ? c.int(300, 3000) : undefined);
const lostLabel = (lost: boolean, slow: number | undefined) =>
  lost ? ` lost response${slow ? ` of a ${slow} ms call` : ''}` : '';

function grpcFault(method: string, codes: readonly string[], lost: boolean): FaultKind {
  return {
    family: method,
    lost,
    make: (id, c) => {
      const status = c.pick(codes);
      const count = lost ? 1 : c.int(1, 2);
      const slow = lost ? slowness(c) : undefined;
      return {
        component: 'secret-manager',
        label: `${method} ${status}${lostLabel(lost, slow)} x${count}`,
        rule: {
          match: method,
          target: secretPath(id),
          status,
          count,
          after: lost,
          ...(slow ? { delayMs: slow } : {}),
        },
      };
    },
  };
}

function kubeFault(method: 'POST' | 'PATCH' | 'DELETE', lost: boolean): FaultKind {
  return {
    family: `kube ${method}`,
    lost,
    make: (id, c) => {
      // A lost response is a 5xx after the effect; 409 only as an answer before it.
      const status = c.pick(lost ? [500, 503] : [500, 503, 409]);
      const count = lost ? 1 : c.int(1, 2);
      const slow = lost ? slowness(c) : undefined;
      const path = method === 'POST' ? secretsPath(id) : `${secretsPath(id)}/${id}-pull-secret`;
      return {
        component: 'kube-apiserver',
        label: `kube ${method} ${status}${lostLabel(lost, slow)} x${count}`,
        // Installed on both management clusters: each takes it at most `count` times.
        rule: {
          match: `${method} ${path}`,
          status,
          count,
          after: lost,
          ...(slow ? { delayMs: slow } : {}),
        },
      };
    },
  };
}

function apiFault(
  caller: 'pullsecret-job' | 'pullsecret-adapter' | 'pullsecret-reporter',
  method: 'GET' | 'PUT',
): FaultKind {
  return {
    family: `api ${caller} ${method}`,
    lost: false,
    make: (id, c) => {
      const path = method === 'GET' ? clusterPath(id) : `${clusterPath(id)}/statuses`;
      const slow = caller !== 'pullsecret-reporter' && c.chance(0.35);
      const status = c.pick([500, 503]);
      const count = slow ? 1 : c.int(1, 2);
      return {
        component: 'hyperfleet-api',
        label: `${caller} ${method} ${slow ? 'timeout' : status} x${count}`,
        // Exact and by caller: the HyperShift simulator, placement and the test read these paths too.
        rule: {
          match: `${method} ${path}`,
          exact: true,
          client: caller,
          count,
          ...(slow ? { delayMs: SLOW_MS } : { status }),
        },
      };
    },
  };
}

const LOST_RESPONSES: readonly FaultKind[] = [
  grpcFault('AddSecretVersion', TRANSIENT, true),
  grpcFault('UpdateSecret', TRANSIENT, true),
  grpcFault('CreateSecret', TRANSIENT, true),
  kubeFault('POST', true),
  kubeFault('PATCH', true),
  kubeFault('DELETE', true),
];
const FAULT_KINDS: readonly FaultKind[] = [
  ...LOST_RESPONSES,
  grpcFault('GetSecret', TRANSIENT, false),
  grpcFault('CreateSecret', TRANSIENT, false),
  grpcFault('UpdateSecret', TRANSIENT_OR_ABORTED, false),
  grpcFault('AddSecretVersion', TRANSIENT, false),
  grpcFault('AccessSecretVersion', TRANSIENT, false),
  grpcFault('DestroySecretVersion', TRANSIENT_OR_ABORTED, false),
  kubeFault('POST', false),
  kubeFault('PATCH', false),
  kubeFault('DELETE', false),
  apiFault('pullsecret-job', 'GET'),
  apiFault('pullsecret-adapter', 'GET'),
  apiFault('pullsecret-adapter', 'PUT'),
  apiFault('pullsecret-reporter', 'PUT'),
];

/** Two lost responses and two other faults, each on a different call. */
function faultsFor(id: string, c: Chooser): PlacedFault[] {
  const kinds: FaultKind[] = [];
  const add = (kind: FaultKind) => {
    if (!kinds.some((k) => k.family === kind.family)) kinds.push(kind);
  };
  for (const kind of c.shuffle(LOST_RESPONSES)) if (kinds.length < 2) add(kind);
  for (const kind of c.shuffle(FAULT_KINDS)) if (kinds.length < 4) add(kind);
  return kinds.map((kind) => kind.make(id, c));
}

export type Role = 'live' | 'delete-early' | 'delete-late';
/** When an action comes: once the cluster converged, or at once (its run still going). */
type When = 'converged' | { readonly afterMs: number };
type Op = { readonly kind: 'update' | 'move'; readonly when: When };

export interface ClusterPlan {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly startAfterMs: number;
  /** Changes before the end (live) or before the delete (delete-late). */
  readonly ops: readonly Op[];
  /** delete-early: right away, once the adapter launched its apply, or once that apply claimed. */
  readonly earlyDelete?: 'at-once' | 'at-launch' | 'at-claim';
  readonly faults: readonly PlacedFault[];
}

export function planRun(seed: number): ClusterPlan[] {
  const c = new Chooser(prng(seed));
  const total = c.int(8, 10);
  const roles: Role[] = c.shuffle([
    'delete-early',
    'delete-early',
    'delete-late',
    'delete-late',
    ...Array.from({ length: total - 4 }, () => 'live' as const),
  ]);
  const when = (): When => (c.chance(0.5) ? 'converged' : { afterMs: c.int(0, 2500) });
  return roles.map((role, index) => {
    const id = c.uuid();
    const opCount = role === 'live' ? c.int(1, 3) : role === 'delete-late' ? c.int(0, 2) : 0;
    const ops = Array.from({ length: opCount }, () => ({
      kind: c.pick(['update', 'move'] as const),
      when: when(),
    }));
    return {
      index,
      id,
      name: `chaos-${seed}-${index}`.slice(0, 53),
      role,
      startAfterMs: c.int(0, 3000),
      ops,
      ...(role === 'delete-early'
        ? { earlyDelete: c.pick(['at-once', 'at-launch', 'at-claim'] as const) }
        : {}),
      faults: faultsFor(id, c),
    };
  });
}

export const describePlan = (p: ClusterPlan) =>
  `#${p.index} ${p.role}${p.earlyDelete ? `(${p.earlyDelete})` : ''} ${p.id} on ${spreadOver(MANAGEMENT_CLUSTERS, p.id)}` +
  ` +${p.startAfterMs}ms ops=[${p.ops.map((o) => `${o.kind}@${o.when === 'converged' ? 'converged' : `+${o.when.afterMs}ms`}`).join(', ')}]` +
  ` faults=[${p.faults.map((f) => f.label).join('; ')}]`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a fault an emulator handed out was taken by this rule. */
export function takenBy(taken: TakenFault, rule: FaultRuleInput): boolean {
  return (
    taken.match === rule.match &&
    (rule.target === undefined || (taken.target ?? '').startsWith(rule.target)) &&
    (rule.client === undefined || taken.client === rule.client)
  );
}
