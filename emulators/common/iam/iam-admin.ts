import * as z from 'zod';
import type { AdminRoute } from '../admin-routes';
import { readJson, sendJson } from '../http';
import type { IamModel } from './iam-model';

const removalSchema = z.object({
  resource: z.string().min(1),
  role: z.string().min(1),
  member: z.string().min(1),
});

/**
 * The emulator's IAM control routes, what an administrator does with gcloud or Terraform:
 *   GET    /_emulator/iam            the configuration and every binding
 *   PUT    /_emulator/iam            replace it (same shape as --iam-file)
 *   POST   /_emulator/iam/bindings   add a binding {resource, role, members, condition?}
 *   DELETE /_emulator/iam/bindings   remove one member {resource, role, member} from that role's
 *                                    bindings there (404 when none held it)
 */
export function iamAdminRoutes(model: IamModel): AdminRoute {
  return async (req, res, path) => {
    const route = `${req.method} ${path}`;
    switch (route) {
      case 'GET /iam':
        sendJson(res, 200, model.snapshot());
        return true;
      case 'PUT /iam':
        model.replace(await readJson(req));
        sendJson(res, 200, model.snapshot());
        return true;
      case 'POST /iam/bindings':
        model.addBinding(await readJson(req));
        sendJson(res, 200, { bindings: model.snapshot().bindings });
        return true;
      case 'DELETE /iam/bindings': {
        const removal = removalSchema.parse(await readJson(req));
        const removed = model.removeMember(removal);
        sendJson(
          res,
          removed > 0 ? 200 : 404,
          removed > 0
            ? { removed, bindings: model.snapshot().bindings }
            : {
                error: `no binding of ${removal.role} on ${removal.resource} names ${removal.member}`,
              },
        );
        return true;
      }
      default:
        return false;
    }
  };
}
