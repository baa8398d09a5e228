/**
 * A read-only catalog database: SQLite through better-sqlite3 (opened read-only, reopened
 * when the file appears or is replaced) or PostgreSQL through @platform/core's Database.
 * Every failure to reach or read it surfaces as CatalogUnavailable.
 */
import { statSync } from "node:fs";
import { compile, type Database, type Dialect, type Sql, sql } from "@platform/core";
import BetterSqlite3 from "better-sqlite3";
import { CatalogUnavailable, classify } from "./unavailable.js";

export type Row = Record<string, unknown>;

export interface CatalogSource {
  readonly dialect: Dialect;
  all<T = Row>(query: Sql): Promise<T[]>;
  /** Calls `visit` for each row without holding all raw rows at once where the driver can stream. */
  each(query: Sql, visit: (row: Row) => void): Promise<void>;
  /** Changes whenever the catalog's data may have changed; cheap enough to poll. */
  changeToken(): Promise<string>;
  close(): Promise<void>;
}

/** SQLite page cache per connection when none is given: the hot pages of popular products stay in memory. */
export const DEFAULT_SQLITE_CACHE_MB = 64;

export function openSqliteSource(path: string, options: { cacheMb?: number } = {}): CatalogSource {
  let handle: BetterSqlite3.Database | null = null;
  let inode = -1;

  /** Opens the file if no handle is open. Replacement of the file is noticed by changeToken(), not per query. */
  const connection = (): BetterSqlite3.Database => {
    if (handle) return handle;
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new CatalogUnavailable("database file not found", { cause: error });
    }
    try {
      handle = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
      // better-sqlite3 is synchronous: a long busy wait would stall every request.
      handle.pragma("busy_timeout = 250");
      handle.pragma(`cache_size = ${-1024 * Math.trunc(options.cacheMb ?? DEFAULT_SQLITE_CACHE_MB)}`);
      inode = stat.ino;
      return handle;
    } catch (error) {
      throw classify(error);
    }
  };

  /** Closes the handle when the file was removed or replaced, so the next query opens what is there now. */
  const checkFile = (): void => {
    let current: number;
    try {
      current = statSync(path).ino;
    } catch {
      current = -1;
    }
    if (handle && current !== inode) {
      handle.close();
      handle = null;
    }
  };

  const statements = new Map<string, BetterSqlite3.Statement>();
  let statementsOf: BetterSqlite3.Database | null = null;
  const prepare = (db: BetterSqlite3.Database, text: string): BetterSqlite3.Statement => {
    if (statementsOf !== db) {
      statements.clear();
      statementsOf = db;
    }
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare(text);
      if (statements.size > 500) statements.clear();
      statements.set(text, statement);
    }
    return statement;
  };

  return {
    dialect: "sqlite",
    async all<T>(query: Sql): Promise<T[]> {
      const { text, values } = compile(query, "sqlite");
      try {
        const bound = values.map((v) => (typeof v === "boolean" ? Number(v) : v));
        return prepare(connection(), text).all(...bound) as T[];
      } catch (error) {
        throw classify(error);
      }
    },
    async each(query: Sql, visit: (row: Row) => void): Promise<void> {
      const { text, values } = compile(query, "sqlite");
      try {
        for (const row of prepare(connection(), text).iterate(...values)) visit(row as Row);
      } catch (error) {
        throw classify(error);
      }
    },
    async changeToken(): Promise<string> {
      try {
        checkFile();
        const db = connection();
        return `${inode}:${db.pragma("data_version", { simple: true })}:${statSync(path).mtimeMs}`;
      } catch (error) {
        throw classify(error);
      }
    },
    async close(): Promise<void> {
      handle?.close();
      handle = null;
    },
  };
}

/** A PostgreSQL catalog on a Database the caller owns (closing the source does not close it unless `owned`). */
export function openPostgresSource(db: Database, options: { owned?: boolean } = {}): CatalogSource {
  return {
    dialect: "postgres",
    async all<T>(query: Sql): Promise<T[]> {
      try {
        return (await db.query<T>(query)).rows;
      } catch (error) {
        throw classify(error);
      }
    },
    async each(query: Sql, visit: (row: Row) => void): Promise<void> {
      try {
        for (const row of (await db.query<Row>(query)).rows) visit(row);
      } catch (error) {
        throw classify(error);
      }
    },
    async changeToken(): Promise<string> {
      try {
        // Optional tables enter the fingerprint only when they exist: a catalog without them still loads.
        const present = await db.query<{ s: boolean; c: boolean }>(
          sql`SELECT to_regclass('catalog_settlements') IS NOT NULL AS s, to_regclass('catalog_categories') IS NOT NULL AS c`,
        );
        const optional = present.rows[0];
        const settlements = optional?.s ? sql`(SELECT max(updated_at) FROM catalog_settlements)` : sql`NULL`;
        const categories = optional?.c ? sql`(SELECT max(updated_at) FROM catalog_categories)` : sql`NULL`;
        const { rows } = await db.query(
          sql`SELECT (SELECT count(*) FROM catalog_products) AS n, (SELECT max(updated_at) FROM catalog_products) AS p,
                     (SELECT max(id) FROM catalog_products) AS i, ${settlements} AS s, ${categories} AS c`,
        );
        return JSON.stringify(rows[0]);
      } catch (error) {
        throw classify(error);
      }
    },
    async close(): Promise<void> {
      if (options.owned) await db.close();
    },
  };
}
