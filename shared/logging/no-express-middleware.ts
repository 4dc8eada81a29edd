// Bundle-time substitute for @google-cloud/logging-winston's `./middleware/express` (see
// scripts/bundle.cjs): the request-logging middleware for Express apps, which nothing here installs
// and which loads google-auth-library when the logger loads. Same exports; each refuses clearly.
export const REQUEST_LOG_SUFFIX = '_reqlog';

export function makeMiddleware(): never {
  throw new Error(
    '@google-cloud/logging-winston express middleware is not part of this bundle (scripts/bundle.cjs)',
  );
}
