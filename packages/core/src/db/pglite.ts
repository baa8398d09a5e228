import { PGlite, type Transaction } from "@electric-sql/pglite";
import { citext } from "@electric-sql/pglite/contrib/citext";
import { ltree } from "@electric-sql/pglite/contrib/ltree";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { type Compiled, compile, Sql } from "../sql.js";
import type { Database, Queryable, QueryResult } from "./types.js";
import { textParsers } from "./types-parsing.js";

function queryable(engine: PGlite | Transaction): Queryable {
  return {
    async query<T>(statement: Sql | Compiled): Promise<QueryResult<T>> {
      const { text, values } = statement instanceof Sql ? compile(statement, "postgres") : statement;
      const result = await engine.query<T>(text, values, { parsers: textParsers });
      // `affectedRows` is 0 for a SELECT; the command tag's count matches what pg reports.
      return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
    },
    async exec(script: string): Promise<void> {
      await engine.exec(script);
    },
  };
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
    transaction: (work) => engine.transaction((tx) => work(queryable(tx))),
    close: () => engine.close(),
  };
}
