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
}

/** A bounded in-memory log of requests that tests and benchmarks read to count calls. */
export class RequestLog {
  private readonly records: RequestRecord[] = [];

  constructor(private readonly capacity = 100_000) {}

  add(record: Omit<RequestRecord, 'time'>): void {
    this.records.push({ time: new Date().toISOString(), ...record });
    if (this.records.length > this.capacity)
      this.records.splice(0, this.records.length - this.capacity);
  }

  list(): readonly RequestRecord[] {
    return this.records;
  }

  clear(): void {
    this.records.length = 0;
  }
}
