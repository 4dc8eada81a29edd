/**
 * Creates a value on first use and shares it between concurrent callers; a failed creation is
 * forgotten so the next call tries again (a cold start must not keep a transient failure).
 */
export function lazily<T>(create: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= create().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
