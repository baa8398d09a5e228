/** The legacy `/v1/query` `insert` operation (used by Hasura's test fixtures): plain rows, admin only. */
import { type Database, ident, join, sql } from "@platform/core";
import { binaryNumericText } from "../compiler/numeric-text.js";
import { rowNotAnObject } from "../errors/index.js";
import type { QualifiedTable } from "./types.js";

export async function insertRows(db: Database, table: QualifiedTable | string, objects: unknown): Promise<{ affected_rows: number }> {
  const target = typeof table === "string" ? { schema: "public", name: table } : table;
  const rows = Array.isArray(objects) ? objects : [objects];
  return db.transaction(async (tx) => {
    // Hasura sends numbers for numeric columns in PostgreSQL's binary format, which fixes their display scale.
    const { rows: numericColumns } = await tx.query<{ name: string }>(
      sql`SELECT a.attname AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ${target.schema} AND c.relname = ${target.name} AND a.atttypid = 'numeric'::regtype AND a.attnum > 0 AND NOT a.attisdropped`,
    );
    const numeric = new Set(numericColumns.map((c) => c.name));
    let affected = 0;
    for (const row of rows) {
      if (!row || typeof row !== "object" || Array.isArray(row)) throw rowNotAnObject();
      const entries = Object.entries(row as Record<string, unknown>);
      const value = (column: string, v: unknown) => {
        if (numeric.has(column) && typeof v === "number") return sql`${binaryNumericText(v) ?? v}`;
        return v !== null && typeof v === "object" ? sql`${JSON.stringify(v)}` : sql`${v}`;
      };
      const statement =
        entries.length === 0
          ? sql`INSERT INTO ${ident(target.schema, target.name)} DEFAULT VALUES`
          : sql`INSERT INTO ${ident(target.schema, target.name)} (${join(entries.map(([c]) => sql`${ident(c)}`))}) VALUES (${join(entries.map(([c, v]) => value(c, v)))})`;
      affected += (await tx.query(statement)).rowCount;
    }
    return { affected_rows: affected };
  });
}
