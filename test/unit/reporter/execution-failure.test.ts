import { classifyExecutionFailure } from '../../../shared/executions/execution-failure';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';

const failed = (overrides: Partial<ExecutionSummary>): ExecutionSummary => ({
  name: 'projects/p/locations/l/jobs/j/executions/j-abc12',
  env: {},
  succeeded: false,
  cancelled: false,
  message: '',
  ...overrides,
});

describe('classifyExecutionFailure (structured fields only)', () => {
  it.each<[string, Partial<ExecutionSummary>, object]>([
    [
      'cancelled',
      { cancelled: true, executionReason: 'CANCELLED' },
      { executionReason: 'Cancelled' },
    ],
    ['being cancelled', { executionReason: 'CANCELLING' }, { executionReason: 'Cancelled' }],
    ['deleted', { executionReason: 'DELETED' }, { executionReason: 'Deleted' }],
    ['task timeout', { lastAttempt: { statusCode: 4 } }, { executionReason: 'Timeout' }],
    [
      'memory limit',
      { executionReason: 'NON_ZERO_EXIT_CODE', lastAttempt: { exitCode: 137, statusCode: 8 } },
      { executionReason: 'OOMKilled', exitCode: 137 },
    ],
    [
      'killed by a signal',
      { executionReason: 'NON_ZERO_EXIT_CODE', lastAttempt: { exitCode: 143, statusCode: 2 } },
      { executionReason: 'Killed', exitCode: 143, failureKind: 'transient' },
    ],
    [
      'exit 1: internal error',
      { lastAttempt: { exitCode: 1, statusCode: 2 } },
      { executionReason: 'NonZeroExit', reason: 'InternalError', failureKind: 'transient' },
    ],
    [
      'exit 2: configuration',
      { lastAttempt: { exitCode: 2, statusCode: 2 } },
      { reason: 'InvalidConfiguration', failureKind: 'permanent', exitCode: 2 },
    ],
    [
      'exit 3: permanent',
      { lastAttempt: { exitCode: 3, statusCode: 2 } },
      { reason: 'JobFailed', failureKind: 'permanent' },
    ],
    [
      'exit 4: transient',
      { lastAttempt: { exitCode: 4, statusCode: 2 } },
      { reason: 'JobFailed', failureKind: 'transient' },
    ],
    [
      'an undocumented exit code (127, missing entrypoint)',
      { lastAttempt: { exitCode: 127, statusCode: 2 } },
      { executionReason: 'NonZeroExit', failureKind: 'transient', exitCode: 127 },
    ],
    [
      'NON_ZERO_EXIT_CODE without task details',
      { executionReason: 'NON_ZERO_EXIT_CODE' },
      { executionReason: 'NonZeroExit', failureKind: 'transient' },
    ],
    [
      'nothing structured, whatever the message says',
      { message: 'Task x timed out; Memory limit exceeded' },
      { executionReason: 'Unknown', failureKind: 'transient' },
    ],
  ])('%s', (_, overrides, expected) => {
    expect(classifyExecutionFailure(failed(overrides))).toMatchObject(expected);
  });
});
