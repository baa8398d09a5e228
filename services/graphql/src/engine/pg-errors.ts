/**
 * PostgreSQL errors to Hasura errors by SQLSTATE, as `mkTxErrorHandler` in Hasura's
 * server/src-lib/Hasura/Backends/Postgres/Execute/Types.hs; raw database text only in `internal`.
 */
import { HasuraError } from "./errors.js";

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

export function fromPostgres(error: unknown, path = "$"): HasuraError {
  if (error instanceof HasuraError) return error;
  const e = (error ?? {}) as PgError;
  const code = typeof e.code === "string" ? e.code : "";
  const message = typeof e.message === "string" ? e.message : "";
  const internal = { error: { status_code: code, message, description: e.detail ?? null, hint: e.hint ?? null } };
  const make = (hasuraCode: ConstructorParameters<typeof HasuraError>[0], text: string) =>
    new HasuraError(hasuraCode, text, path, 400, { cause: error, internal });
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
  return new HasuraError("unexpected", "database query error", path, 500, { cause: error, internal });
}
