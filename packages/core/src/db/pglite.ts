import { PGlite, type Transaction } from "@electric-sql/pglite";
import { citext } from "@electric-sql/pglite/contrib/citext";
import { ltree } from "@electric-sql/pglite/contrib/ltree";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { type Compiled, compile, Sql } from "../sql.js";
import {
  type Database,
  type Queryable,
  type QueryOptions,
  type QueryResult,
  ResponseTooLargeError,
  type TransactionOptions,
} from "./types.js";
import { textParsers } from "./types-parsing.js";

/**
 * Cancellation on PGlite is partial, and cannot be more: PGlite runs PostgreSQL compiled to
 * WebAssembly on this process's JavaScript thread, so while it runs a statement no timer, abort
 * or socket event of this process runs at all. `SET statement_timeout` is accepted but not
 * enforced (PostgreSQL's timeouts need a SIGALRM that the WebAssembly build never receives:
 * `SET statement_timeout = 300; SELECT pg_sleep(2)` returns after 2 s, tested in
 * services/graphql/test/limits-timeout.test.ts). So a signal only stops the statements that
 * have not started yet: an aborted request runs no further statement, and its transaction rolls
 * back. A statement that is already running runs to its end; use PostgreSQL (a database URL)
 * where a client can send expensive queries.
 */
function queryable(engine: PGlite | Transaction, signal?: AbortSignal): Queryable {
  return {
    async query<T>(statement: Sql | Compiled, options?: QueryOptions): Promise<QueryResult<T>> {
      signal?.throwIfAborted();
      options?.signal?.throwIfAborted();
      const { text, values } = statement instanceof Sql ? compile(statement, "postgres") : statement;
      const result = await engine.query<T>(text, values, { parsers: textParsers });
      const max = options?.maxResponseBytes;
      if (max !== undefined && answerBytes(result.rows) > max) throw new ResponseTooLargeError(max);
      // `affectedRows` is 0 for a SELECT; the command tag's count matches what pg reports.
      return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
    },
    async exec(script: string): Promise<void> {
      signal?.throwIfAborted();
      await engine.exec(script);
    },
  };
}

/** The bytes of the rows' text values (the engine's answers are text columns), counted until `max` is passed. */
function answerBytes(rows: unknown[]): number {
  let bytes = 0;
  for (const row of rows)
    for (const value of Object.values(row as Record<string, unknown>)) {
      if (typeof value === "string") bytes += value.length;
      else if (Array.isArray(value)) for (const item of value) bytes += typeof item === "string" ? item.length : 8;
      else bytes += 8;
    }
  return bytes;
}

/** `SET TRANSACTION` for the options, when they ask for more than PostgreSQL's default. */
function transactionMode(options: TransactionOptions | undefined): string | null {
  const parts = [options?.isolation === "repeatable read" ? "ISOLATION LEVEL REPEATABLE READ" : "", options?.readOnly ? "READ ONLY" : ""];
  const mode = parts.filter(Boolean).join(" ");
  return mode ? `SET TRANSACTION ${mode}` : null;
}

export async function openPglite(dataDir?: string): Promise<Database> {
  // citext and ltree are common in Hasura projects (and its fixtures), and Hasura creates pgcrypto
  // on a fresh database; PGlite ships them as contrib extensions, available once listed here.
  const options = { parsers: textParsers, extensions: { citext, ltree, pgcrypto } };
  const engine = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
  await engine.waitReady;
  return {
    kind: "pglite",
    driver: engine,
    ...queryable(engine),
    async transaction(work, options) {
      options?.signal?.throwIfAborted();
      return engine.transaction(async (tx) => {
        const mode = transactionMode(options);
        if (mode) await tx.query(mode);
        const result = await work(queryable(tx, options?.signal));
        // Cancelled after its last statement: roll back all the same.
        options?.signal?.throwIfAborted();
        return result;
      });
    },
    async listen(channel, handlers) {
      // The embedded engine is this process: its listening never breaks.
      const stop = await engine.listen(channel, (payload) => handlers.notify(payload));
      return async () => {
        await stop();
      };
    },
    close: () => engine.close(),
  };
}
