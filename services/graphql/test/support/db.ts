/**
 * Fresh databases for the graphql suites: in-memory PGlite always, and a new database on the
 * server named by TEST_DATABASE_URL (dropped on dispose) when it is set. Each handle gives the
 * @platform/core `Database` and a `SqlRunner` (run_sql access) over the same driver.
 */
import { type Database, openScratchDatabase } from "@platform/core";
import type { SqlRunner } from "../../src/engine/catalog/run-sql.js";
import { sqlRunnerFor } from "../../src/engine/catalog/run-sql-adapters.js";

export type TestBackend = "pglite" | "postgres";

export interface TestDatabase {
  backend: TestBackend;
  db: Database;
  /** The server database's URL (PostgreSQL only). */
  url?: string | undefined;
  runner: SqlRunner;
  dispose(): Promise<void>;
}

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** The backends every suite runs on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set. */
export const testBackends: TestBackend[] = serverUrl ? ["pglite", "postgres"] : ["pglite"];

export async function openTestDatabase(backend: TestBackend): Promise<TestDatabase> {
  if (backend === "postgres" && !serverUrl) throw new Error("TEST_DATABASE_URL is not set");
  const { db, url, dispose } = await openScratchDatabase(backend === "postgres" ? serverUrl : undefined, "graphql_test");
  return { backend, db, url, runner: sqlRunnerFor(db), dispose };
}
