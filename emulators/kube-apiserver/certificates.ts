import {
  createCertificateAuthority,
  issueServingCertificate,
  type ServingCertificate,
} from '../common/certificates';

export type { ServingCertificate } from '../common/certificates';

/**
 * Generates a private CA (a GKE cluster CA's stand-in) and a serving certificate for
 * 127.0.0.1/localhost with openssl, so both @kubernetes/client-node and kubectl verify TLS and send
 * bearer tokens as they do in production.
 */
export function generateServingCertificate(
  directory: string,
  hosts: readonly string[] = ['127.0.0.1', 'localhost'],
): ServingCertificate {
  const ca = createCertificateAuthority(directory, 'kube-apiserver-emulator-ca');
  return issueServingCertificate(ca, directory, hosts);
}
