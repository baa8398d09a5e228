/** Applies migrations/*.sql in the DB_NAMESPACE schema; several instances may run it at once. */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type Database, migrate, readMigrations } from "@platform/core";
import { DEFAULT_SCHEMA } from "./tables.js";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * One advisory-lock key per schema, so deployments in different schemas do not wait on each
 * other. The default schema keeps the key earlier releases used.
 */
export function lockKey(purpose: string, schema: string): number {
  const scope = schema === DEFAULT_SCHEMA ? "" : schema;
  return createHash("sha256").update(`auth:${purpose}:${scope}`).digest().readInt32BE(0);
}

/**
 * A migration's text for `schema`. The files name schema `auth` (the first ones also carry an
 * empty `{{prefix}}` placeholder from when the namespace was a table-name prefix); they stay
 * byte-for-byte as applied, since a changed file is refused, so the schema is put in here.
 * New files may write `{{schema}}`. The schema is validated as a plain identifier when the
 * configuration is read.
 */
export function migrationSql(text: string, schema: string): string {
  return text
    .replace(/\bauth\.(?:\{\{prefix\}\})?(?=[a-z_])/g, `${schema}.`)
    .replaceAll("{{prefix}}", "")
    .replaceAll("{{schema}}", schema);
}

export function runMigrations(db: Database, schema: string = DEFAULT_SCHEMA): Promise<number[]> {
  return migrate(db, readMigrations(MIGRATIONS_DIR), {
    schema,
    table: "schema_migrations",
    lockKey: lockKey("migrate", schema),
    substitute: (text) => migrationSql(text, schema),
  });
}
