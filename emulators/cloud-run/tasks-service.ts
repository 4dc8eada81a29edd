import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';
import type { ExecutionState } from './execution-state';

type Request = Record<string, unknown>;

/** Whether `pattern` (a name whose segments may be `-`, "any") matches `name`. */
function matches(pattern: string, name: string): boolean {
  const want = pattern.split('/');
  const have = name.split('/');
  return want.length === have.length && want.every((part, i) => part === '-' || part === have[i]);
}

/**
 * google.cloud.run.v2.Tasks over the emulator's executions, one Task per task index: GetTask by
 * name (`EXECUTION/tasks/EXECUTION-taskN`), and ListTasks under an execution, where `-` stands for
 * any execution or job as the API allows; an execution's tasks are listed by index.
 */
export function taskHandlers(
  executions: ReadonlyMap<string, ExecutionState>,
): Record<string, (request: Request) => unknown> {
  return {
    GetTask: (request) => {
      const name = String(request.name ?? '');
      const execution = executions.get(name.split('/tasks/')[0] ?? '');
      const index = execution?.tasks.findIndex((task) => execution.taskName(task.index) === name);
      if (!execution || index === undefined || index < 0)
        throw new GrpcError(
          grpc.status.NOT_FOUND,
          `Resource '${name}' of kind 'TASK' was not found.`,
        );
      return execution.taskProto(index);
    },
    ListTasks: (request) => {
      const parent = String(request.parent ?? '');
      return {
        tasks: [...executions.values()]
          .filter((execution) => matches(parent, execution.name))
          .flatMap((execution) => execution.tasks.map((task) => execution.taskProto(task.index))),
        next_page_token: '',
      };
    },
  };
}
