/**
 * Fresh databases for the graphql suites: in-memory PGlite always, and a new database on the
 * server named by TEST_DATABASE_URL (dropped on dispose) when it is set. Each handle gives the
 * @platform/core `Database` and a `SqlRunner` (run_sql access) over the same driver.
 */
import { randomBytes } from "node:crypto";
import { type Database, ident, openDatabase, sql } from "@platform/core";
import type { SqlRunner } from "../../src/engine/catalog/run-sql.js";
import { sqlRunnerFor } from "../../src/engine/catalog/run-sql-adapters.js";

export type TestBackend = "pglite" | "postgres";

export interface TestDatabase {
  backend: TestBackend;
  db: Database;
  runner: SqlRunner;
  dispose(): Promise<void>;
}

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** The backends every suite runs on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set. */
export const testBackends: TestBackend[] = serverUrl ? ["pglite", "postgres"] : ["pglite"];

export async function openTestDatabase(backend: TestBackend): Promise<TestDatabase> {
  if (backend === "pglite") {
    const db = await openDatabase({});
    return { backend, db, runner: sqlRunnerFor(db), dispose: () => db.close() };
  }
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `graphql_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = await openDatabase({ url: serverUrl, maxConnections: 1 });
  try {
    await admin.query(sql`CREATE DATABASE ${ident(name)}`);
  } finally {
    await admin.close();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), maxConnections: 4 });
  return {
    backend,
    db,
    runner: sqlRunnerFor(db),
    async dispose() {
      await db.close();
      const dropper = await openDatabase({ url: serverUrl, maxConnections: 1 });
      try {
        await dropper.query(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
      } finally {
        await dropper.close();
      }
    },
  };
}
