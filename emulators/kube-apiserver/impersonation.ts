import type { IncomingMessage } from 'node:http';
import { AUTHENTICATED, type UserInfo } from './authentication';
import type { Authorizer } from './authorizer';
import { forbidden } from './status';

/**
 * User impersonation (`kubectl --as USER --as-group GROUP`): the `Impersonate-User` and
 * `Impersonate-Group` headers, each checked as the `impersonate` verb on `users` / `groups` for
 * the authenticated user (kubernetes.io/docs/reference/access-authn-authz/authentication/#user-impersonation).
 * The impersonated user is also in system:authenticated, as the real server adds it. It carries
 * no Google token: on a GKE cluster IAM knows it only by an email user name (gke-iam.ts).
 */
export function impersonated(
  req: IncomingMessage,
  authenticated: UserInfo,
  authorize: Authorizer,
): UserInfo {
  const user = req.headers['impersonate-user'];
  const rawGroups = req.headers['impersonate-group'];
  const groups = (Array.isArray(rawGroups) ? rawGroups : rawGroups ? [rawGroups] : []).flatMap(
    (value) => value.split(',').map((g) => g.trim()),
  );
  if (typeof user !== 'string' || user === '') return authenticated;
  const check = (resource: 'users' | 'groups', name: string) => {
    const decision = authorize(authenticated, {
      verb: 'impersonate',
      group: '',
      resource,
      name,
    });
    if (!decision.allowed)
      throw forbidden(
        authenticated.username,
        'impersonate',
        resource,
        name,
        undefined,
        '',
        decision.iamPermission,
      );
  };
  check('users', user);
  for (const group of groups) check('groups', group);
  return { username: user, groups: [...new Set([...groups, AUTHENTICATED])] };
}
