import { createHash } from "node:crypto";
import pg from "pg";
import { type Compiled, compile, Sql } from "../sql.js";
import type { Database, Queryable, QueryOptions, QueryResult } from "./types.js";
import { textParsers } from "./types-parsing.js";

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    const parser = textParsers[oid];
    if (parser && format !== "binary") return parser;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** A prepared statement's name: a hash of its text, so equal statements share one server-side plan. */
export function statementName(text: string): string {
  return `p_${createHash("sha1").update(text).digest("base64url")}`;
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(statement: Sql | Compiled, options?: QueryOptions): Promise<QueryResult<T>> {
      const { text, values } = statement instanceof Sql ? compile(statement, "postgres") : statement;
      const name = options?.name ?? (options?.prepare ? statementName(text) : undefined);
      const result = await client.query({ text, values, types, ...(name ? { name } : {}) });
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    async exec(script: string): Promise<void> {
      await client.query(script);
    },
  };
}

export function openPostgres(url: string, maxConnections = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections, types });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return {
    kind: "postgres",
    driver: pool,
    ...queryable(pool),
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(queryable(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
