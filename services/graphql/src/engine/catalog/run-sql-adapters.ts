/**
 * `SqlRunner`s over the two drivers. Both give every value of a simple query back as the text
 * Postgres sent (no type parsing), and `query()` maps values like @platform/core does
 * (timestamps and numeric as text, int8 as a number when exact).
 */
import { type PGlite, types as pgliteTypes, type Transaction } from "@electric-sql/pglite";
import { compile, type Database, type QueryResult, type Sql } from "@platform/core";
import pg from "pg";
import type { SqlConnection, SqlRunner, StatementResult } from "./run-sql.js";

const identity = (text: string): string => text;

function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

// The same value mapping as @platform/core's drivers (it does not export its table).
const coreParsers: Record<number, (text: string) => unknown> = {
  20: parseInt8, // int8
  1082: identity, // date
  1114: identity, // timestamp
  1184: identity, // timestamptz
  1700: identity, // numeric
};

const rawTextTypes = { getTypeParser: () => identity } as unknown as pg.CustomTypesConfig;

const coreTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    const parser = coreParsers[oid];
    if (parser && format !== "binary") return parser;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

function pgConnection(client: pg.PoolClient): SqlConnection {
  return {
    async simpleQuery(text: string): Promise<StatementResult[]> {
      // No values: pg uses the simple query protocol and returns an array for several statements.
      const out = (await client.query({ text, rowMode: "array", types: rawTextTypes })) as pg.QueryArrayResult | pg.QueryArrayResult[];
      return (Array.isArray(out) ? out : [out]).map((r) => ({
        fields: r.fields.map((f) => f.name),
        rows: r.rows as Array<Array<string | null>>,
        command: r.command ?? "",
      }));
    },
    async query<T>(statement: Sql): Promise<QueryResult<T>> {
      const { text, values } = compile(statement, "postgres");
      const result = await client.query({ text, values, types: coreTypes });
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    async exec(script: string): Promise<void> {
      await client.query(script);
    },
  };
}

/** A runner over a pg pool: each transaction checks out one client. */
export function pgPoolRunner(pool: pg.Pool): SqlRunner {
  return {
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(pgConnection(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((e: Error) => {
          broken = e;
        });
        throw error;
      } finally {
        // A client that cannot even roll back is discarded rather than returned to the pool.
        client.release(broken);
      }
    },
  };
}

/** Every type PGlite knows about maps to the identity, so values stay Postgres text. */
function rawTextParsers(engine: PGlite): Record<number, (text: string) => string> {
  const parsers: Record<number, (text: string) => string> = {};
  for (const oid of Object.keys(engine.parsers)) parsers[Number(oid)] = identity;
  for (const oid of Object.keys(pgliteTypes.parsers)) parsers[Number(oid)] = identity;
  return parsers;
}

function pgliteConnection(tx: Transaction, rawParsers: Record<number, (text: string) => string>): SqlConnection {
  return {
    async simpleQuery(text: string): Promise<StatementResult[]> {
      const results = await tx.exec(text, { rowMode: "array", parsers: rawParsers });
      return results.map((r) => ({
        fields: r.fields.map((f) => f.name),
        rows: r.rows as unknown as Array<Array<string | null>>,
        command: r.command ?? "",
      }));
    },
    async query<T>(statement: Sql): Promise<QueryResult<T>> {
      const { text, values } = compile(statement, "postgres");
      const result = await tx.query<T>(text, values, { parsers: coreParsers });
      return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
    },
    async exec(script: string): Promise<void> {
      await tx.exec(script);
    },
  };
}

/** A runner over a PGlite instance (one connection; PGlite serialises transactions itself). */
export function pgliteRunner(engine: PGlite): SqlRunner {
  return {
    transaction: (work) => engine.transaction((tx) => work(pgliteConnection(tx, rawTextParsers(engine)))),
  };
}

/** The runner for a @platform/core Database, over the driver it exposes. */
export function sqlRunnerFor(db: Database): SqlRunner {
  return db.kind === "pglite" ? pgliteRunner(db.driver as PGlite) : pgPoolRunner(db.driver as pg.Pool);
}
