/** The legacy `/v1/query` `insert` operation (used by Hasura's test fixtures): plain rows, admin only. */
import { type Database, ident, join, sql } from "@platform/core";
import { HasuraError } from "./errors.js";
import type { QualifiedTable } from "./metadata/types.js";

export async function insertRows(db: Database, table: QualifiedTable | string, objects: unknown): Promise<{ affected_rows: number }> {
  const target = typeof table === "string" ? { schema: "public", name: table } : table;
  const rows = Array.isArray(objects) ? objects : [objects];
  return db.transaction(async (tx) => {
    let affected = 0;
    for (const row of rows) {
      if (!row || typeof row !== "object" || Array.isArray(row))
        throw new HasuraError("parse-failed", "expecting an object for each row", "$.args.objects");
      const entries = Object.entries(row as Record<string, unknown>);
      const value = (v: unknown) => (v !== null && typeof v === "object" ? sql`${JSON.stringify(v)}` : sql`${v}`);
      const statement =
        entries.length === 0
          ? sql`INSERT INTO ${ident(target.schema, target.name)} DEFAULT VALUES`
          : sql`INSERT INTO ${ident(target.schema, target.name)} (${join(entries.map(([c]) => sql`${ident(c)}`))}) VALUES (${join(entries.map(([, v]) => value(v)))})`;
      affected += (await tx.query(statement)).rowCount;
    }
    return { affected_rows: affected };
  });
}
