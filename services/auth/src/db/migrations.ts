/** Applies migrations/*.sql with the table prefix substituted; several instances may run it at once. */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type Database, migrate, readMigrations } from "@platform/core";
import { SCHEMA } from "./tables.js";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

/** One advisory-lock key per (schema, namespace), so differently prefixed deployments do not wait on each other. */
export function lockKey(purpose: string, namespace: string): number {
  return createHash("sha256").update(`auth:${purpose}:${namespace}`).digest().readInt32BE(0);
}

export function runMigrations(db: Database, namespace: string): Promise<number[]> {
  const prefix = namespace ? `${namespace}_` : "";
  return migrate(db, readMigrations(MIGRATIONS_DIR), {
    schema: SCHEMA,
    table: `${prefix}schema_migrations`,
    lockKey: lockKey("migrate", namespace),
    // The namespace is validated as a plain identifier when the configuration is read.
    substitute: (text) => text.replaceAll("{{prefix}}", prefix),
  });
}
