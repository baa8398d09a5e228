/**
 * PostgreSQL errors to Hasura errors by SQLSTATE, as `mkTxErrorHandler` in Hasura's
 * server/src-lib/Hasura/Backends/Postgres/Execute/Types.hs; raw database text only in `internal`.
 */
import { databaseQueryError, type HasuraCode, HasuraError, postgresError, unexpectedError } from "./index.js";

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

/** The statement that failed, for `internal` (Hasura shows the SQL and its arguments to those allowed to see internals). */
export interface FailedStatement {
  text: string;
  values: readonly unknown[];
  prepared: boolean;
}

/** A PostgreSQL error (node-postgres' and PGlite's alike carry the SQLSTATE as `code`), not a fault of the engine. */
function isDatabaseError(error: unknown): boolean {
  const code = (error as PgError | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

export function fromPostgres(error: unknown, path = "$", statement?: FailedStatement): HasuraError {
  if (error instanceof HasuraError) return error;
  if (!isDatabaseError(error)) {
    return unexpectedError(path, error);
  }
  const e = error as PgError;
  const code = e.code as string;
  const message = typeof e.message === "string" ? e.message : "";
  const internal = {
    error: { exec_status: "FatalError", status_code: code, message, description: e.detail ?? null, hint: e.hint ?? null },
    ...(statement ? { statement: statement.text, arguments: statement.values, prepared: statement.prepared } : {}),
  };
  const make = (hasuraCode: HasuraCode, text: string) => postgresError(hasuraCode, text, path, { cause: error, internal });
  switch (code) {
    case "23505":
      return make("constraint-violation", `Uniqueness violation. ${message}`);
    case "23503":
      return make("constraint-violation", `Foreign key violation. ${message}`);
    case "23502":
      return make("constraint-violation", `Not-NULL violation. ${message}`);
    case "23001":
      return make("constraint-violation", `Can not delete or update due to data being referred. ${message}`);
    case "23P01":
      return make("constraint-violation", `Exclusion violation. ${message}`);
    case "23514":
      return make("permission-error", `Check constraint violation. ${message}`);
    case "22025":
      return make("bad-request", message);
    case "42P10":
      return make("constraint-error", "there is no unique or exclusion constraint on target column(s)");
  }
  if (code.startsWith("23")) return make("constraint-violation", message);
  if (code.startsWith("22")) return make("data-exception", message);
  if (code.startsWith("42")) return make("constraint-error", message);
  return databaseQueryError(path, { cause: error, internal });
}

/** A statement's failure (with the statement for `internal`, when given); a cancellation stays the signal's reason. */
export function statementFailure(error: unknown, signal: AbortSignal | undefined, statement?: FailedStatement): unknown {
  return signal?.aborted && error === signal.reason ? error : fromPostgres(error, "$", statement);
}
