/**
 * The databases a suite runs against: embedded PGlite always, a real PostgreSQL server when
 * TEST_DATABASE_URL is set (CI sets it).
 */
import { randomBytes } from "node:crypto";
import { type Database, ident, openDatabase, sql } from "../src/index.js";

export interface Target {
  name: "pglite" | "postgres";
  url: string | undefined;
}

const url = process.env.TEST_DATABASE_URL?.trim();

export const targets: Target[] = [{ name: "pglite", url: undefined }, ...(url ? [{ name: "postgres" as const, url }] : [])];

export function open(target: Target): Promise<Database> {
  return openDatabase({ url: target.url, maxConnections: 4 });
}

/** A schema name no other test file or earlier run uses. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

export async function dropSchema(db: Database, schema: string): Promise<void> {
  await db.query(sql`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`);
}
