/**
 * What the connected catalog actually has. Converter revisions add and drop columns and tables;
 * queries select NULL for a missing column instead of failing, and a missing optional table reads
 * as empty.
 */
import { getOrInsert, sql } from "@platform/core";
import type { CatalogSource } from "./source.js";

export const TABLES = [
  "catalog_products",
  "catalog_product_snapshots",
  "catalog_product_assets",
  "catalog_categories",
  "catalog_settlements",
  "converter_sync_state",
] as const;
export type TableName = (typeof TABLES)[number];

export interface SchemaFacts {
  /** Lower-cased data type per column, per present table. */
  tables: Map<string, Map<string, string>>;
}

export function hasTable(facts: SchemaFacts, table: TableName): boolean {
  return facts.tables.has(table);
}

export function hasColumn(facts: SchemaFacts, table: TableName, column: string): boolean {
  return facts.tables.get(table)?.has(column) ?? false;
}

export function columnType(facts: SchemaFacts, table: TableName, column: string): string | undefined {
  return facts.tables.get(table)?.get(column);
}

export async function readSchema(source: CatalogSource): Promise<SchemaFacts> {
  const tables = new Map<string, Map<string, string>>();
  const rows =
    source.dialect === "sqlite"
      ? await source.all<{ table_name: string; column_name: string; data_type: string }>(
          sql`SELECT m.name AS table_name, p.name AS column_name, lower(p.type) AS data_type
              FROM sqlite_master m JOIN pragma_table_info(m.name) p
              WHERE m.type IN ('table', 'view') AND m.name LIKE 'c%'`,
        )
      : await source.all<{ table_name: string; column_name: string; data_type: string }>(
          sql`SELECT table_name, column_name, lower(data_type) AS data_type FROM information_schema.columns
              WHERE table_schema = current_schema()`,
        );
  const wanted = new Set<string>(TABLES);
  for (const row of rows) {
    if (!wanted.has(row.table_name)) continue;
    getOrInsert(tables, row.table_name, () => new Map<string, string>()).set(row.column_name, row.data_type);
  }
  return { tables };
}
