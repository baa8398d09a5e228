/** Recognises the driver errors the domain reacts to, without the domain knowing SQLSTATEs. */

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === "23505";

/** A row lock was not granted within the transaction's lock_timeout. */
export const isLockTimeout = (error: unknown): boolean => sqlState(error) === "55P03";
