/** One request as an emulator saw it; never contains payloads. */
export interface RequestRecord {
  readonly time: string;
  /** gRPC method name or HTTP method. */
  readonly method: string;
  /** Resource name or HTTP path. */
  readonly target: string;
  /** gRPC code name or HTTP status of the answer. */
  readonly outcome: string | number;
  /** Identity (token subject) where the emulator authenticates. */
  readonly identity?: string;
  /**
   * The caller's User-Agent where it sent one (HTTP): which component made the request, where
   * several share one identity (the adapter, the reporter and the job all read a cluster).
   */
  readonly client?: string;
  /** A Kubernetes dry run (`?dryRun=All`): authorized and admitted, never stored. */
  readonly dryRun?: boolean;
  /**
   * A Kubernetes create's object name (its path names only the collection), as the audit log's
   * objectRef.name: from the object created, or the refusal's `details.name`.
   */
  readonly name?: string;
}

/** Called with every request as it is logged, also after the log is full. */
export type RequestObserver = (record: RequestRecord) => void;

/**
 * A bounded in-memory log of requests that tests and benchmarks read to count calls. It keeps the
 * last `capacity` records; `total` and observers see every request, so counts stay right past the
 * capacity (a 10,000-cluster simulation makes millions of calls).
 */
export class RequestLog {
  private records: RequestRecord[] = [];
  private readonly observers = new Set<RequestObserver>();
  private count = 0;

  constructor(private readonly capacity = 100_000) {}

  add(record: Omit<RequestRecord, 'time'>): void {
    const full: RequestRecord = { time: new Date().toISOString(), ...record };
    this.records.push(full);
    this.count++;
    // Trimmed in one go once twice as long, so each add costs O(1) on average (a splice per add
    // past the capacity made a long run quadratic).
    if (this.records.length >= 2 * this.capacity) this.records = this.records.slice(-this.capacity);
    for (const observer of this.observers) observer(full);
  }

  /** The last `capacity` requests, oldest first. */
  list(): readonly RequestRecord[] {
    return this.records.length > this.capacity ? this.records.slice(-this.capacity) : this.records;
  }

  /** Every request logged since the start (or the last clear), beyond the capacity too. */
  get total(): number {
    return this.count;
  }

  /** Calls `observer` with each request logged from now on; returns the function that stops it. */
  observe(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  clear(): void {
    this.records.length = 0;
    this.count = 0;
  }
}
