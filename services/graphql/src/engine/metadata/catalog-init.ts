/**
 * What Hasura does to a database the first time it sees it, before anything else runs on it
 * (`initSource` and `enablePgcryptoExtension` in Hasura's
 * server/src-lib/Hasura/Backends/Postgres/DDL/Source.hs): when `hdb_catalog` does not exist yet
 * it creates that schema and the `pgcrypto` extension, in the extensions schema
 * (HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA, default `public`). Migrations written for
 * Hasura may therefore use pgcrypto's functions (`crypt`, `gen_salt`, `digest`, ...) freely.
 * A database that already has `hdb_catalog` is left as it is, as Hasura leaves it.
 */
import { ident, type Queryable, sql } from "@platform/core";
import { pgcryptoNotAvailable, pgcryptoNotCreated } from "../errors/index.js";

/** Creates `hdb_catalog` and pgcrypto on a database that has no `hdb_catalog` yet; true when it did. */
export async function initCatalog(tx: Queryable, extensionsSchema: string): Promise<boolean> {
  const { rows } = await tx.query<{ present: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'hdb_catalog') AS present`,
  );
  if (rows[0]?.present) return false;
  await tx.query(sql`CREATE SCHEMA hdb_catalog`);
  const available = await tx.query<{ available: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'pgcrypto') AS available`,
  );
  if (!available.rows[0]?.available) throw pgcryptoNotAvailable();
  try {
    await tx.query(sql`CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA ${ident(extensionsSchema)}`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw pgcryptoNotCreated(code === "42501", error);
  }
  return true;
}
