import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

/** The window Cloud Run's "per minute" quota counts over. */
export const QUOTA_WINDOW_MS = 60_000;

/**
 * The Cloud Run Admin API quota "Job run requests per minute per region", which RunJob consumes.
 * Google's quota page (https://docs.cloud.google.com/run/quotas) names Cloud Run's API rate limits
 * but does not publish this one's default (third parties record 180 a minute, one project 60):
 * so the emulator has none unless given one (option or `POST /quota`), and then counts the
 * requests it accepted in the last 60 s, a rolling window (the strictest reading of "per minute":
 * staying under it here stays under a quota refilled by the minute too). A request over the quota
 * is refused with RESOURCE_EXHAUSTED (HTTP 429 on the REST surface), Google's quota message, and
 * nothing is created; a refused request does not count.
 */
export class RunJobQuota {
  private readonly accepted: number[] = [];
  private refused = 0;

  constructor(
    private perMinute: number | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The quota (undefined: none), the requests counted in the current window, and refusals so far. */
  state(): { runJobsPerMinute: number | null; inWindow: number; refused: number } {
    this.expire();
    return {
      runJobsPerMinute: this.perMinute ?? null,
      inWindow: this.accepted.length,
      refused: this.refused,
    };
  }

  /** Sets or (undefined) removes the quota; the requests already counted stay counted. */
  set(perMinute: number | undefined): void {
    this.perMinute = perMinute;
  }

  /** Counts one RunJob on `job`, or throws RESOURCE_EXHAUSTED when the window is full. */
  admit(job: string): void {
    if (this.perMinute === undefined) return;
    this.expire();
    if (this.accepted.length >= this.perMinute) {
      this.refused++;
      // The wording of Google's quota errors (google.rpc.ErrorInfo reason RATE_LIMIT_EXCEEDED).
      const region = /\/locations\/([^/]+)\//.exec(job)?.[1] ?? 'unknown';
      const project = /^projects\/([^/]+)\//.exec(job)?.[1] ?? 'unknown';
      throw new GrpcError(
        grpc.status.RESOURCE_EXHAUSTED,
        `Quota exceeded for quota metric 'Job run requests' and limit 'Job run requests per minute per region' of service 'run.googleapis.com' for consumer 'project:${project}' in region ${region}.`,
      );
    }
    this.accepted.push(this.now());
  }

  private expire(): void {
    const oldest = this.now() - QUOTA_WINDOW_MS;
    while (this.accepted.length > 0 && this.accepted[0]! <= oldest) this.accepted.shift();
  }
}
