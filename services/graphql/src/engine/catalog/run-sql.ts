/**
 * Hasura's `run_sql` (https://hasura.io/docs/latest/api-reference/schema-api/run-sql/): raw SQL
 * text, several statements allowed, run in one transaction; the answer is the last statement's
 * result with every value as Postgres' text.
 * The Database interface binds parameters and parses values, so this runs on a `SqlRunner`
 * (see run-sql-adapters.ts for pg and PGlite).
 */
import type { Queryable } from "@platform/core";
import { type HasuraError, queryExecutionFailed } from "../errors/index.js";

/** One statement's result from the simple query protocol. */
export interface StatementResult {
  /** Column names; empty for a statement that returns no rows (a command). */
  fields: string[];
  /** Values exactly as Postgres prints them (`t`, `{1,2}`, `2024-01-01 00:00:00+00`); SQL NULL as null. */
  rows: Array<Array<string | null>>;
  /** The command tag's verb (`SELECT`, `INSERT`, `CREATE`, ...), or "" when unknown. */
  command: string;
}

/** One connection inside a transaction. */
export interface SqlConnection extends Queryable {
  /** Runs parameterless SQL text that may hold several statements; one result per statement. */
  simpleQuery(text: string): Promise<StatementResult[]>;
}

/** Raw access to the database beyond `Database`: a transaction on one connection. */
export interface SqlRunner {
  /** Runs `work` between BEGIN and COMMIT on one connection; ROLLBACK when it throws. */
  transaction<T>(work: (conn: SqlConnection) => Promise<T>): Promise<T>;
}

export interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  read_only?: boolean;
  check_metadata_consistency?: boolean;
}

export type RunSqlResult = { result_type: "CommandOk"; result: null } | { result_type: "TuplesOk"; result: Array<Array<string | null>> };

export interface RunSqlOptions {
  /**
   * Runs in the same transaction after the statements and before COMMIT (for instance the
   * metadata consistency check that `cascade` / `check_metadata_consistency` ask for);
   * throwing rolls the statements back.
   */
  beforeCommit?: (tx: Queryable) => Promise<void>;
  /** JSON path of the error (default `$`). */
  errorPath?: string;
}

export async function runSql(runner: SqlRunner, args: RunSqlArgs, options: RunSqlOptions = {}): Promise<RunSqlResult> {
  try {
    return await runner.transaction(async (conn) => {
      if (args.read_only) await conn.simpleQuery("SET TRANSACTION READ ONLY");
      const results = await conn.simpleQuery(args.sql);
      if (options.beforeCommit) await options.beforeCommit(conn);
      return toResult(results[results.length - 1]);
    });
  } catch (error) {
    if (isPostgresError(error)) throw queryFailed(error, args.sql, options.errorPath ?? "$");
    throw error;
  }
}

function toResult(last: StatementResult | undefined): RunSqlResult {
  if (!last || last.fields.length === 0) return { result_type: "CommandOk", result: null };
  return { result_type: "TuplesOk", result: [last.fields, ...last.rows] };
}

/** The fields pg's and PGlite's DatabaseError share. */
export interface PostgresError {
  message: string;
  code: string;
  severity?: string;
  detail?: string;
  hint?: string;
}

export function isPostgresError(error: unknown): error is PostgresError {
  if (typeof error !== "object" || error === null) return false;
  const e = error as Record<string, unknown>;
  return typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.message === "string" && typeof e.severity === "string";
}

/** Hasura's run_sql failure: `query execution failed`, `postgres-error`, the pg error in `internal`. */
function queryFailed(error: PostgresError, statement: string, path: string): HasuraError {
  const internal = {
    arguments: [],
    error: {
      description: error.detail ?? null,
      exec_status: "FatalError",
      hint: error.hint ?? null,
      message: error.message,
      status_code: error.code,
    },
    prepared: false,
    statement,
  };
  return queryExecutionFailed(path, { cause: error, internal });
}
