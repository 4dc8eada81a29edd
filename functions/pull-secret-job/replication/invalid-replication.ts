import { PermanentError } from '../../../shared/errors';

/**
 * The replication a cluster asks for cannot be honoured: a malformed request, a location the
 * operator or the tenant's organization policy does not allow, a fleet CMEK key that cannot serve
 * it, or an existing secret replicated elsewhere. Permanent: the same spec fails the same way, so
 * it is reported (reason InvalidReplication) rather than retried, and nothing is written.
 */
export class InvalidReplicationError extends PermanentError {
  constructor(message: string) {
    super(message, 'InvalidReplication');
  }
}
