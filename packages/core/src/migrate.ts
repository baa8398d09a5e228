/**
 * Applies plain numbered SQL files (`0001_create_users.sql`) in order, each in its own
 * transaction, and records them in a bookkeeping table. Re-running applies only what is
 * missing; a changed file that was already applied is refused. A transaction-scoped
 * advisory lock makes concurrent instances take turns, so several processes may start at once.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join as joinPath } from "node:path";
import type { Database } from "./db/index.js";
import { ident, sql } from "./sql.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateOptions {
  /** Schema that holds the bookkeeping table (created if missing). */
  schema: string;
  /** Bookkeeping table name. */
  table?: string;
  /** Lock key shared by every instance migrating the same schema. */
  lockKey?: number;
  /** Text substitutions applied to each file before running it (e.g. a table prefix). */
  substitute?: (sqlText: string) => string;
}

const FILE = /^(\d+)_([\w-]+)\.sql$/;

export function readMigrations(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: FILE.exec(file) }))
    .filter((f): f is { file: string; match: RegExpExecArray } => f.match !== null)
    .map(({ file, match }) => {
      const text = readFileSync(joinPath(dir, file), "utf8");
      return { version: Number(match[1]), name: match[2] ?? file, sql: text, checksum: createHash("sha256").update(text).digest("hex") };
    })
    .sort((a, b) => a.version - b.version);
  const seen = new Set<number>();
  for (const m of migrations) {
    if (seen.has(m.version)) throw new Error(`two migrations share version ${m.version} in ${dir}`);
    seen.add(m.version);
  }
  return migrations;
}

function lockKeyFor(schema: string): number {
  return createHash("sha256").update(`migrate:${schema}`).digest().readInt32BE(0);
}

/** Applies pending migrations; returns the versions it applied. */
export async function migrate(db: Database, migrations: Migration[], options: MigrateOptions): Promise<number[]> {
  const table = ident(options.schema, options.table ?? "schema_migrations");
  const lockKey = options.lockKey ?? lockKeyFor(options.schema);
  await db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${lockKey})`);
    await tx.query(sql`CREATE SCHEMA IF NOT EXISTS ${ident(options.schema)}`);
    await tx.query(
      sql`CREATE TABLE IF NOT EXISTS ${table} (version bigint PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const applied: number[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      await tx.query(sql`SELECT pg_advisory_xact_lock(${lockKey})`);
      const { rows } = await tx.query<{ checksum: string }>(sql`SELECT checksum FROM ${table} WHERE version = ${migration.version}`);
      const existing = rows[0];
      if (existing) {
        if (existing.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.version}_${migration.name} was changed after it was applied`);
        }
        return false;
      }
      await tx.exec(options.substitute ? options.substitute(migration.sql) : migration.sql);
      await tx.query(
        sql`INSERT INTO ${table} (version, name, checksum) VALUES (${migration.version}, ${migration.name}, ${migration.checksum})`,
      );
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}
