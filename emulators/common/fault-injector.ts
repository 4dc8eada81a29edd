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
    count: z.number().int().min(1).default(1),
    /** gRPC code name/number or HTTP status; absent means delay only. */
    status: z.union([z.string(), z.number()]).optional(),
    /** Waited before the request is handled (with `after`, before it is performed). */
    delayMs: z.number().int().min(0).optional(),
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
}

/**
 * Holds injected faults for an emulator. Each rule applies to the next `count` requests whose key
 * starts with (or, `exact`, equals) `match`; rules are consumed in the order they were added.
 */
export class FaultInjector {
  private readonly rules: { rule: FaultRule; remaining: number }[] = [];

  add(input: FaultRuleInput): void {
    const rule = faultRuleSchema.parse(input);
    this.rules.push({ rule, remaining: rule.count });
  }

  clear(): void {
    this.rules.length = 0;
  }

  /**
   * Takes the fault for a request, if any; `key` is the method name or `METHOD /path`, `target`
   * the gRPC request's resource name.
   */
  take(key: string, target = ''): Fault | undefined {
    const index = this.rules.findIndex(
      ({ rule }) =>
        (rule.exact ? key === rule.match : key.startsWith(rule.match)) &&
        (rule.target === undefined || target.startsWith(rule.target)),
    );
    if (index < 0) return undefined;
    const entry = this.rules[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.rules.splice(index, 1);
    const { status, delayMs, message, after, code, headers } = entry.rule;
    return { status, delayMs, message, after, code, headers };
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
