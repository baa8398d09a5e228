/**
 * A fresh database prepared as Hasura prepares it (initSource in Hasura's
 * server/src-lib/Hasura/Backends/Postgres/DDL/Source.hs): hdb_catalog and the pgcrypto extension
 * exist before the first migration runs, so migrations written for Hasura may use pgcrypto.
 * On PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, sql } from "@platform/core";
import { afterAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, type TestBackend, type TestDatabase, testBackends } from "./support/db.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A Hasura migrations directory whose one migration needs pgcrypto's crypt() and gen_salt(). */
function migrationsNeedingPgcrypto(): string {
  const dir = mkdtempSync(join(tmpdir(), "hasura-pgcrypto-"));
  dirs.push(dir);
  const version = join(dir, "default", "1700000000000_users");
  mkdirSync(version, { recursive: true });
  writeFileSync(
    join(version, "up.sql"),
    `CREATE TABLE users (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), password_hash text NOT NULL);
     INSERT INTO users (password_hash) VALUES (crypt('secret', gen_salt('bf', 4)));`,
  );
  return dir;
}

/** The engine on `database`, with the pgcrypto migration unless `migrations` is false. */
async function start(database: TestDatabase, env: Record<string, string> = {}, migrations = true) {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    ...(migrations ? { HASURA_GRAPHQL_MIGRATIONS_DIR: migrationsNeedingPgcrypto() } : {}),
    ...env,
  });
  return createGraphql(config, createLogger({ level: "silent" }), { db: database.db });
}

async function pgcryptoSchema(database: TestDatabase): Promise<string | undefined> {
  const { rows } = await database.db.query<{ nspname: string }>(
    sql`SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgcrypto'`,
  );
  return rows[0]?.nspname;
}

/** `work` on a database of its own, dropped afterwards. */
async function onFresh(backend: TestBackend, work: (database: TestDatabase) => Promise<void>): Promise<void> {
  const database = await openTestDatabase(backend);
  try {
    await work(database);
  } finally {
    await database.dispose();
  }
}

describe.each(testBackends)("a fresh database [%s]", (backend) => {
  it("gets hdb_catalog and pgcrypto before the first migration, which may then use crypt()", async () => {
    await onFresh(backend, async (database) => {
      const service = await start(database);
      await service.close();
      expect(await pgcryptoSchema(database)).toBe("public");
      const { rows } = await database.db.query<{ ok: boolean }>(
        sql`SELECT password_hash = crypt('secret', password_hash) AS ok FROM users`,
      );
      expect(rows).toEqual([{ ok: true }]);
    });
  });

  it("creates pgcrypto in HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA", async () => {
    await onFresh(backend, async (database) => {
      await database.db.exec("CREATE SCHEMA extensions");
      // Functions in that schema are not on the default search_path, so no unqualified crypt() here (as with Hasura).
      const service = await start(database, { HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA: "extensions" }, false);
      await service.close();
      expect(await pgcryptoSchema(database)).toBe("extensions");
    });
  });

  it("leaves a database that already has hdb_catalog as it is", async () => {
    await onFresh(backend, async (database) => {
      await database.db.exec("CREATE SCHEMA hdb_catalog");
      const service = await start(database, {}, false);
      await service.close();
      expect(await pgcryptoSchema(database)).toBeUndefined();
    });
  });

  it("stops with Hasura's message when pgcrypto cannot be created, leaving nothing half-made", async () => {
    await onFresh(backend, async (database) => {
      await expect(start(database, { HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA: "no_such_schema" })).rejects.toThrow(
        "pgcrypto extension is required, but it could not be created; encountered unknown postgres error",
      );
      const { rows } = await database.db.query<{ present: boolean }>(
        sql`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'hdb_catalog') AS present`,
      );
      expect(rows).toEqual([{ present: false }]);
    });
  });
});
