import https from 'node:https';
import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

/** The TLS settings of an agent the client library made: what our shared agent must keep. */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'];

const sameTls = (a: https.AgentOptions, b: https.AgentOptions): boolean =>
  TLS_OPTIONS.every(
    (name) =>
      String(a[name as keyof https.AgentOptions]) === String(b[name as keyof https.AgentOptions]),
  );

/**
 * Authentication for a Kubernetes API client that sends every request over one keep-alive
 * connection. @kubernetes/client-node makes a new https.Agent for each request, so each request
 * paid a new TCP connection and TLS handshake (a job run makes several; against GKE or Connect
 * Gateway each handshake is a network round trip or two). The library still decides everything
 * else: headers and tokens are applied on every request, and when its TLS settings change (a
 * rotated client certificate) a new shared agent is made. Proxy agents are left as they are.
 */
export function keepAliveAuthentication(config: k8s.KubeConfig): k8s.SecurityAuthentication {
  let shared: https.Agent | undefined;
  return {
    getName: () => config.getName(),
    applySecurityAuthentication: async (context) => {
      await config.applySecurityAuthentication(context);
      const made = context.getAgent();
      if (!(made instanceof https.Agent) || made.constructor !== https.Agent) return;
      const options = made.options;
      if (!shared || !sameTls(shared.options, options))
        shared = new https.Agent({ ...options, keepAlive: true });
      context.setAgent(shared);
    },
  };
}
