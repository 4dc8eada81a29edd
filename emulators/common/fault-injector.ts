import * as z from 'zod';

/**
 * One injected fault: the next `count` matching requests fail with `status` and/or are delayed.
 * With `after: true` the request is performed first and its answer replaced by the error: the
 * caller sees a failure although the effect happened (a response lost on the network).
 */
export const faultRuleSchema = z
  .object({
    /** gRPC method name (e.g. `AddSecretVersion`) or an HTTP `METHOD /path` prefix (e.g. `GET /api/v1`). */
    match: z.string().min(1),
    /**
     * The request's key must equal `match`, not only start with it: `GET /api/.../clusters/ID`
     * alone, without `GET /api/.../clusters/ID/statuses`, which other actors in the local stack
     * (the HyperShift simulator) also read and would take the fault from the caller under test.
     */
    exact: z.boolean().default(false),
    /**
     * gRPC only: a prefix of the request's resource name (e.g. one cluster's secret), so a fault
     * meant for one cluster's work is not taken by another's request for the same method.
     */
    target: z.string().min(1).optional(),
    /**
     * HTTP only: the caller's User-Agent (e.g. `pullsecret-adapter`), so a fault meant for one
     * component is not taken by another making the same request (the job and a test's poll read
     * the same cluster as the adapter).
     */
    client: z.string().min(1).optional(),
    count: z.number().int().min(1).default(1),
    /** gRPC code name/number or HTTP status; absent means delay only. */
    status: z.union([z.string(), z.number()]).optional(),
    /** Waited before the request is handled (with `after`, before it is performed). */
    delayMs: z.number().int().min(0).optional(),
    /**
     * Hold the request (before it is handled) until `release()` or `clear()`: a race test lets
     * another actor run to the end meanwhile and then lets the held caller go on, with no timing
     * to guess (a delay must outlast the other actor; a hold waits for the test to say so).
     */
    hold: z.boolean().default(false),
    message: z.string().optional(),
    /** Perform the request, then answer with `status` instead of its result. */
    after: z.boolean().default(false),
    /** HTTP only: the error code of the problem body (e.g. `HYPERFLEET-NTF-000`, a router 404). */
    code: z.string().optional(),
    /** HTTP only: headers a proxy in front would add (e.g. `{"retry-after": "1"}` on a 429). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .refine((rule) => !rule.after || rule.status !== undefined, {
    message: '"after": true needs a "status" to answer with once the request was performed',
    path: ['after'],
  });
export type FaultRule = z.output<typeof faultRuleSchema>;
export type FaultRuleInput = z.input<typeof faultRuleSchema>;

/** What the emulator must do with one request. */
export interface Fault {
  readonly status?: string | number;
  readonly delayMs?: number;
  readonly message?: string;
  /** Perform the request first, then answer with `status`. */
  readonly after: boolean;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A held request waits for this before it is handled (FaultInjector.release). */
  readonly held?: Promise<void>;
}

/** A fault some request took: which rule, which request, which caller, when. */
export interface TakenFault {
  readonly time: string;
  /** The rule's `match`. */
  readonly match: string;
  /** The request's key (`METHOD /path` or the gRPC method). */
  readonly key: string;
  /** The gRPC request's resource name, where there is one. */
  readonly target?: string;
  /** The caller's User-Agent, where the emulator knows it (HTTP). */
  readonly client?: string;
  readonly status?: string | number;
  readonly delayMs?: number;
}

/** How many taken faults are kept (the oldest are dropped first). */
const TAKEN_CAPACITY = 1000;

/**
 * Holds injected faults for an emulator. Each rule applies to the next `count` requests whose key
 * starts with (or, `exact`, equals) `match`; rules are consumed in the order they were added.
 * Every fault taken is recorded with the caller, so a test can prove that the component it names
 * received the fault (and, for a delay, that the request is held right now), not some other caller.
 */
export class FaultInjector {
  private readonly rules: { rule: FaultRule; remaining: number }[] = [];
  private readonly history: TakenFault[] = [];
  private readonly holds = new Set<() => void>();

  add(input: FaultRuleInput): void {
    const rule = faultRuleSchema.parse(input);
    this.rules.push({ rule, remaining: rule.count });
  }

  /** Drops the waiting rules and the record of taken faults; lets every held request go on. */
  clear(): void {
    this.rules.length = 0;
    this.history.length = 0;
    this.release();
  }

  /** Lets every request held by a `hold` rule go on; how many there were. */
  release(): number {
    const held = [...this.holds];
    this.holds.clear();
    for (const go of held) go();
    return held.length;
  }

  /** How many requests a `hold` rule holds right now. */
  holding(): number {
    return this.holds.size;
  }

  /**
   * Takes the fault for a request, if any; `key` is the method name or `METHOD /path`, `target`
   * the gRPC request's resource name, `client` the caller's User-Agent (HTTP).
   */
  take(key: string, target = '', client = ''): Fault | undefined {
    const index = this.rules.findIndex(
      ({ rule }) =>
        (rule.exact ? key === rule.match : key.startsWith(rule.match)) &&
        (rule.target === undefined || target.startsWith(rule.target)) &&
        (rule.client === undefined || client === rule.client),
    );
    if (index < 0) return undefined;
    const entry = this.rules[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.rules.splice(index, 1);
    const { status, delayMs, message, after, code, headers, hold } = entry.rule;
    this.history.push({
      time: new Date().toISOString(),
      match: entry.rule.match,
      key,
      ...(target ? { target } : {}),
      ...(client ? { client } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(delayMs !== undefined ? { delayMs } : {}),
    });
    if (this.history.length > TAKEN_CAPACITY) this.history.shift();
    const held = hold
      ? new Promise<void>((resolve) => {
          const go = () => {
            this.holds.delete(go);
            resolve();
          };
          this.holds.add(go);
        })
      : undefined;
    return { status, delayMs, message, after, code, headers, ...(held ? { held } : {}) };
  }

  /** The faults taken so far (the last TAKEN_CAPACITY), oldest first. */
  taken(): readonly TakenFault[] {
    return [...this.history];
  }

  /** The rules still waiting, with how many times each will still fire (for the local console). */
  list(): (FaultRule & { remaining: number })[] {
    return this.rules.map(({ rule, remaining }) => ({ ...rule, remaining }));
  }

  pending(): number {
    return this.rules.reduce((sum, { remaining }) => sum + remaining, 0);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
