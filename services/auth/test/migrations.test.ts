/** The migrations' text per DB_NAMESPACE schema: the default deployment runs exactly what it ran before. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readMigrations } from "@platform/core";
import { describe, expect, it } from "vitest";
import { lockKey, MIGRATIONS_DIR, migrationSql } from "../src/db/migrations.js";

describe("auth migrations", () => {
  it("run unchanged in schema auth (what the table-prefix release ran with no prefix)", () => {
    for (const migration of readMigrations(MIGRATIONS_DIR)) {
      expect(migrationSql(migration.sql, "auth")).toBe(migration.sql.replaceAll("{{prefix}}", ""));
    }
  });

  it("put every table, type, index and function in the DB_NAMESPACE schema", () => {
    const all = readMigrations(MIGRATIONS_DIR)
      .map((m) => migrationSql(m.sql, "tenant"))
      .join("\n")
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n");
    expect(all).not.toMatch(/\bauth\./);
    expect(all).not.toContain("{{");
    expect(all).toContain("CREATE TABLE tenant.users (");
    expect(all).toContain("REFERENCES tenant.users (id)");
    expect(all).toContain("aal tenant.aal_level NOT NULL");
    expect(all).toContain("CREATE OR REPLACE FUNCTION tenant.uid()");
    expect(all).toContain("tenant.jwt() ->> 'sub'");
    expect(readFileSync(join(MIGRATIONS_DIR, "0003_create_claim_functions.sql"), "utf8")).toContain("auth.jwt()");
  });

  it("keeps the default schema's lock keys and gives other schemas their own", () => {
    expect(lockKey("migrate", "auth")).toBe(lockKey("migrate", ""));
    expect(lockKey("migrate", "tenant")).not.toBe(lockKey("migrate", "auth"));
    expect(lockKey("signing-keys", "tenant")).not.toBe(lockKey("migrate", "tenant"));
  });
});
