/**
 * The one error base class. Services throw AppErrors from their own catalogue; each
 * service's HTTP error handler renders them in that service's wire shape. Anything that is
 * not an AppError is unexpected: it is logged with an id and answered generically.
 */
export class AppError extends Error {
  constructor(
    /** HTTP status the error maps to. */
    readonly status: number,
    /** Stable machine-readable code. */
    readonly code: string,
    message: string,
    /** Extra data a renderer may expose (validation details, ...). */
    readonly details?: unknown,
    options?: { cause?: unknown; reported?: boolean },
  ) {
    super(message, options);
    this.name = "AppError";
    this.reported = options?.reported === true;
  }

  /**
   * The service logs this condition itself (once, when it starts: a database going away, say),
   * so answering it with a 5xx is not logged again per request.
   */
  readonly reported: boolean;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
