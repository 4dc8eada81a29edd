import type { AdminRoute } from '../common/admin-routes';
import { sendJson } from '../common/http';
import type { Dispatcher } from './dispatcher';
import type { QueueBook } from './queue-book';
import type { AttemptRecord, TaskRecord } from './records';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

const describeAttempt = (attempt: AttemptRecord) => ({
  scheduleTime: iso(attempt.scheduleTimeMs),
  dispatchTime: iso(attempt.dispatchTimeMs),
  responseTime: iso(attempt.responseTimeMs),
  httpStatus: attempt.httpStatus ?? null,
  responseStatus: attempt.status ?? null,
});

/** A task for the admin API: where it goes and every attempt, never its body or headers. */
const describeTask = (task: TaskRecord) => ({
  name: task.name,
  url: task.request.url,
  method: task.request.method,
  serviceAccount:
    task.request.oauthToken?.serviceAccountEmail ??
    task.request.oidcToken?.serviceAccountEmail ??
    null,
  bodyBytes: task.request.body?.length ?? 0,
  scheduleTime: iso(task.scheduleTimeMs),
  createTime: iso(task.createTimeMs),
  dispatchCount: task.dispatchCount,
  responseCount: task.responseCount,
  running: task.running,
  attempts: task.attempts.map(describeAttempt),
});

/**
 * The Cloud Tasks emulator's own admin routes, beside the common ones (faults, requests):
 *   GET  /_emulator/queues               every queue: state, rate, retry, tasks waiting, in flight
 *   GET  /_emulator/tasks?queue=NAME     a queue's tasks (every queue's without `queue`) with their attempts
 *   POST /_emulator/dispatch             dispatch what is due now and wait for the answers (manual mode)
 */
export function cloudTasksAdmin(book: QueueBook, dispatcher: Dispatcher): AdminRoute {
  return async (req, res, path) => {
    if (req.method === 'GET' && path === '/queues') {
      sendJson(res, 200, {
        queues: [...book.queues.values()].map((q) => ({
          name: q.name,
          state: q.state,
          rateLimits: q.rate,
          retryConfig: q.retry,
          tasks: book.tasksOf(q.name).length,
          inFlight: q.inFlight,
        })),
      });
      return true;
    }
    if (req.method === 'GET' && path === '/tasks') {
      const queue = new URL(req.url ?? '/', 'http://admin').searchParams.get('queue');
      const tasks = queue ? book.tasksOf(queue) : [...book.tasks.values()];
      sendJson(res, 200, { tasks: tasks.map(describeTask) });
      return true;
    }
    if (req.method === 'POST' && path === '/dispatch') {
      const { started } = dispatcher.tick();
      await dispatcher.idle();
      sendJson(res, 200, { dispatched: started });
      return true;
    }
    return false;
  };
}
