/**
 * A database of its own for one test file: in-memory PGlite, or a fresh database on the
 * PostgreSQL server at `serverUrl` (what TEST_DATABASE_URL names in CI), dropped on dispose.
 */
import { randomBytes } from "node:crypto";
import { type Database, openDatabase } from "./db/index.js";
import { ident, sql } from "./sql.js";

export interface ScratchDatabase {
  db: Database;
  dispose(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (admin: Database) => Promise<T>): Promise<T> {
  const admin = await openDatabase({ url: serverUrl, maxConnections: 1 });
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}

export async function openScratchDatabase(serverUrl: string | undefined, prefix = "test"): Promise<ScratchDatabase> {
  if (!serverUrl) {
    const db = await openDatabase({});
    return { db, dispose: () => db.close() };
  }
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await onServer(serverUrl, (admin) => admin.query(sql`CREATE DATABASE ${ident(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), maxConnections: 4 });
  return {
    db,
    async dispose() {
      await db.close();
      await onServer(serverUrl, (admin) => admin.query(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
    },
  };
}
