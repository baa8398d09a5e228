/**
 * Errors of the database: PostgreSQL's own (SQLSTATE to Hasura code as `mkTxErrorHandler` in
 * server/src-lib/Hasura/Backends/Postgres/Execute/Types.hs; the raw database text only in
 * `internal`), run_sql's failure, enum tables, and the catalog Hasura sets up on a new database.
 */
import { type HasuraCode, HasuraError } from "./hasura-error.js";

interface Failure {
  cause: unknown;
  /** What Hasura shows in `extensions.internal`: the PostgreSQL error, the statement. */
  internal: unknown;
}

/** A PostgreSQL error mapped to a Hasura code; `message` is Hasura's prefix (`Uniqueness violation. `) and the database's text. */
export function postgresError(code: HasuraCode, message: string, path: string, failure: Failure): HasuraError {
  return new HasuraError(code, message, path, 400, failure);
}

/** A PostgreSQL error of no class Hasura maps. */
export function databaseQueryError(path: string, failure: Failure): HasuraError {
  return new HasuraError("unexpected", "database query error", path, 500, failure);
}

/**
 * A query's statement always answers one row; none means the database lost an error it should
 * have raised (PGlite does so for a regular expression too complex to compile, which PostgreSQL
 * refuses with 2201B). Answering null for every field would hide the fault.
 */
export function noResultRow(statement: { text: string; values: unknown[] }): HasuraError {
  const error = { message: "the database answered no row to a statement that always answers one" };
  return databaseQueryError("$", {
    cause: new Error(error.message),
    internal: { error, statement: statement.text, arguments: statement.values },
  });
}

/** Something thrown that is not a PostgreSQL error: a fault of the engine, its message only in `internal`. */
export function unexpectedError(path: string, cause: unknown): HasuraError {
  const message = cause instanceof Error ? cause.message : typeof cause === "object" ? JSON.stringify(cause) : String(cause);
  return new HasuraError("unexpected", "unexpected error", path, 500, { cause, internal: { error: { message } } });
}

/** run_sql's failure (https://hasura.io/docs/latest/api-reference/schema-api/run-sql/), the PostgreSQL error in `internal`. */
export function queryExecutionFailed(path: string, failure: Failure): HasuraError {
  return new HasuraError("postgres-error", "query execution failed", path, 400, failure);
}

/**
 * A table that cannot be an enum table; `message` is `fetchAndValidateEnumValues`' text
 * (server/src-lib/Hasura/Backends/Postgres/DDL/Table.hs), built by catalog/enum-table.ts.
 */
export function enumTableUnusable(message: string): HasuraError {
  return new HasuraError("constraint-violation", message);
}

// `initSource` and `enablePgcryptoExtension` in server/src-lib/Hasura/Backends/Postgres/DDL/Source.hs.

export function pgcryptoNotAvailable(): HasuraError {
  return new HasuraError(
    "unexpected",
    "pgcrypto extension is required, but could not find the extension in the PostgreSQL server. Please make sure this extension is available.",
    "$",
    400,
  );
}

/** CREATE EXTENSION pgcrypto failed: for want of permission (SQLSTATE 42501), or otherwise. */
export function pgcryptoNotCreated(permissionDenied: boolean, cause: unknown): HasuraError {
  const message = permissionDenied
    ? "pgcrypto extension is required, but the current user doesn’t have permission to create it. Please grant superuser permission, or setup the initial schema via https://hasura.io/docs/latest/graphql/core/deployment/postgres-permissions.html"
    : "pgcrypto extension is required, but it could not be created; encountered unknown postgres error";
  return new HasuraError("postgres-error", message, "$", 500, { cause });
}
