/**
 * Applies a Hasura project's migrations directory (HASURA_GRAPHQL_MIGRATIONS_DIR) the way the
 * cli-migrations image does, recording them where Hasura's CLI does:
 * `hdb_catalog.schema_migrations (version bigint primary key, dirty boolean not null)`.
 *
 * Layouts: config v3 keeps one folder per database, `<dir>/<db>/<version>_<name>/up.sql`;
 * config v1/v2 keep them flat, `<dir>/<version>_<name>/up.sql` or `<dir>/<version>_<name>.up.sql`.
 * Only `up.sql` runs; `down.*` is for the CLI's rollback. An old `up.yaml` (a list of API steps)
 * contributes the SQL of its `run_sql` steps; its metadata steps are skipped, since metadata is
 * loaded from the metadata directory. A version with nothing to run is still recorded.
 *
 * Each migration runs in its own transaction under a transaction-scoped advisory lock, and the
 * bookkeeping row is written in that same transaction, so several instances starting together
 * apply each version exactly once and a failed file leaves nothing behind.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Database, sql } from "@platform/core";
import { parse } from "yaml";

export interface HasuraMigration {
  version: number;
  name: string;
  /** Null when the version has nothing to run (see above). */
  sql: string | null;
}

export interface HasuraMigrationOptions {
  /** The database folder of a config v3 layout. Default `default`. */
  database?: string;
}

/** One fixed key ("hdbs" in ASCII) shared by every instance; core's `migrate()` derives its keys from a hash, not this. */
const LOCK_KEY = 0x68646273; // "hdbs"

const DIR_ENTRY = /^(\d+)_(.+)$/;
const FLAT_FILE = /^(\d+)_(.+)\.(up|down)\.(sql|yaml)$/;

function isDirectory(path: string): boolean {
  return statSync(path).isDirectory();
}

function parseVersion(text: string, where: string): number {
  const version = Number(text);
  // Hasura versions are millisecond timestamps: well inside the safe-integer range.
  if (!Number.isSafeInteger(version)) throw new Error(`migration version ${text} in ${where} is too large`);
  return version;
}

/** The SQL of the `run_sql` steps of an `up.yaml` (also inside `bulk`), in order. */
export function sqlOfUpYaml(text: string): string | null {
  const statements: string[] = [];
  const visit = (step: unknown): void => {
    if (Array.isArray(step)) {
      for (const item of step) visit(item);
      return;
    }
    if (step === null || typeof step !== "object") return;
    const { type, args } = step as { type?: unknown; args?: unknown };
    if (type === "bulk") {
      visit(args);
      return;
    }
    const sqlText = (args as { sql?: unknown } | undefined)?.sql;
    if ((type === "run_sql" || type === "pg_run_sql") && typeof sqlText === "string") statements.push(sqlText);
  };
  visit(parse(text));
  return statements.length > 0 ? statements.join(";\n") : null;
}

function readUp(sqlFile: string, yamlFile: string): string | null {
  if (existsSync(sqlFile)) return readFileSync(sqlFile, "utf8");
  return existsSync(yamlFile) ? sqlOfUpYaml(readFileSync(yamlFile, "utf8")) : null;
}

/** The migrations of one flat folder (v1/v2 layout, or one database folder of v3). */
function readFolder(dir: string): HasuraMigration[] {
  const byVersion = new Map<number, HasuraMigration>();
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const folder = DIR_ENTRY.exec(entry);
    if (folder && isDirectory(path)) {
      const version = parseVersion(folder[1] as string, dir);
      if (byVersion.has(version)) throw new Error(`two migrations share version ${version} in ${dir}`);
      byVersion.set(version, { version, name: folder[2] as string, sql: readUp(join(path, "up.sql"), join(path, "up.yaml")) });
      continue;
    }
    const file = FLAT_FILE.exec(entry);
    if (!file) continue;
    const version = parseVersion(file[1] as string, dir);
    const existing = byVersion.get(version);
    const text = file[3] === "up" ? readFileSync(path, "utf8") : null;
    const runnable = text === null ? null : file[4] === "sql" ? text : sqlOfUpYaml(text);
    if (existing && existing.sql !== null && runnable !== null) throw new Error(`two migrations share version ${version} in ${dir}`);
    byVersion.set(version, { version, name: file[2] as string, sql: existing?.sql ?? runnable });
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

/** Reads a migrations directory in either layout, in version order. */
export function readHasuraMigrations(dir: string, options: HasuraMigrationOptions = {}): HasuraMigration[] {
  if (!existsSync(dir) || !isDirectory(dir)) throw new Error(`migrations directory ${dir} does not exist`);
  const database = options.database ?? "default";
  const dbDir = join(dir, database);
  if (existsSync(dbDir) && isDirectory(dbDir) && !DIR_ENTRY.test(database)) return readFolder(dbDir);
  return readFolder(dir);
}

async function ensureCatalog(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.query(sql`CREATE SCHEMA IF NOT EXISTS hdb_catalog`);
    await tx.query(
      sql`CREATE TABLE IF NOT EXISTS hdb_catalog.schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)`,
    );
  });
}

/** Versions recorded as applied, in order. */
export async function appliedHasuraMigrations(db: Database): Promise<number[]> {
  await ensureCatalog(db);
  const { rows } = await db.query<{ version: number | string }>(sql`SELECT version FROM hdb_catalog.schema_migrations ORDER BY version`);
  return rows.map((r) => Number(r.version));
}

/**
 * Applies the pending migrations of `dir` and returns the versions this call applied. A row
 * left `dirty` (by Hasura's CLI after a failed run) stops everything, as the CLI does: someone
 * must look at that database first.
 */
export async function applyHasuraMigrations(db: Database, dir: string, options: HasuraMigrationOptions = {}): Promise<number[]> {
  const migrations = readHasuraMigrations(dir, options);
  await ensureCatalog(db);
  const { rows: dirty } = await db.query<{ version: number | string }>(
    sql`SELECT version FROM hdb_catalog.schema_migrations WHERE dirty LIMIT 1`,
  );
  if (dirty[0])
    throw new Error(`migration ${dirty[0].version} is marked dirty in hdb_catalog.schema_migrations; fix the database and clear the flag`);

  const applied: number[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      await tx.query(sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
      const { rows } = await tx.query(sql`SELECT 1 FROM hdb_catalog.schema_migrations WHERE version = ${migration.version}`);
      if (rows.length > 0) return false;
      if (migration.sql !== null && migration.sql.trim() !== "") {
        try {
          await tx.exec(migration.sql);
        } catch (error) {
          throw new Error(`migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
      }
      await tx.query(sql`INSERT INTO hdb_catalog.schema_migrations (version, dirty) VALUES (${migration.version}, false)`);
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}
