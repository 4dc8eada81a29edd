import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from './authentication';
import type { Authorizer } from './authorizer';
import type { KubeStore } from './store';

/** An authenticated API request, as the core/v1 and `/apis` routes serve it. */
export interface RouteRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly method: string;
  readonly who: UserInfo;
  readonly store: KubeStore;
  /** The cluster's authorizers (RBAC, and IAM on a GKE cluster): authorizer.ts. */
  readonly authorize: Authorizer;
  /** The field manager of writes (`?fieldManager=`, else the client's user agent). */
  readonly manager: string;
  /** Sends (and logs) a JSON answer. */
  readonly answer: (status: number, body: unknown) => void;
  /** Logs an answer streamed by other means (a watch). */
  readonly log: (status: number) => void;
}
