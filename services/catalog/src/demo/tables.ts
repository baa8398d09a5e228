/**
 * The columns the demo generator fills, per table, with a neutral type each writer maps to its
 * database: SQLite gets naive UTC text and 0/1 (what the converter leaves there, time.ts), and
 * PostgreSQL gets timestamptz and boolean. Rows are produced once, so both get the same data.
 */
import type { TableName } from "../db/schema.js";

export type ColumnType = "bigint" | "integer" | "text" | "numeric" | "float" | "boolean" | "timestamp";

/** One row for one table, its values in the order of that table's DEMO_COLUMNS; timestamps as UTC microseconds. */
export interface DemoRow {
  table: TableName;
  values: unknown[];
}

/** A row counter per table, all zero. */
export function tableCounts(): Record<TableName, number> {
  return {
    catalog_products: 0,
    catalog_product_snapshots: 0,
    catalog_product_assets: 0,
    catalog_categories: 0,
    catalog_settlements: 0,
    converter_sync_state: 0,
  };
}

/** The positions of a table's columns of one type. */
export function columnPositions(table: TableName, type: ColumnType): number[] {
  return DEMO_COLUMNS[table].flatMap(([, t], i) => (t === type ? [i] : []));
}

type Columns = readonly (readonly [string, ColumnType])[];

export const DEMO_COLUMNS: Record<TableName, Columns> = {
  catalog_settlements: [
    ["id", "bigint"],
    ["geo_key", "text"],
    ["country", "text"],
    ["country_normalized", "text"],
    ["region", "text"],
    ["region_normalized", "text"],
    ["name", "text"],
    ["name_normalized", "text"],
    ["settlement_type", "text"],
    ["alias", "text"],
    ["latitude", "float"],
    ["longitude", "float"],
    ["first_seen_at", "timestamp"],
    ["last_seen_at", "timestamp"],
    ["updated_at", "timestamp"],
  ],
  catalog_categories: [
    ["id", "bigint"],
    ["category_key", "text"],
    ["parser_name", "text"],
    ["source_uid", "text"],
    ["parent_source_uid", "text"],
    ["title", "text"],
    ["title_normalized", "text"],
    ["alias", "text"],
    ["depth", "integer"],
    ["sort_order", "integer"],
    ["first_seen_at", "timestamp"],
    ["last_seen_at", "timestamp"],
    ["updated_at", "timestamp"],
  ],
  catalog_products: [
    ["id", "bigint"],
    ["canonical_product_id", "text"],
    ["parser_name", "text"],
    ["source_id", "text"],
    ["plu", "text"],
    ["sku", "text"],
    ["source_page_url", "text"],
    ["title_original", "text"],
    ["title_normalized_no_stopwords", "text"],
    ["brand", "text"],
    ["description", "text"],
    ["price", "numeric"],
    ["discount_price", "numeric"],
    ["loyal_price", "numeric"],
    ["price_unit", "text"],
    ["rating", "float"],
    ["reviews_count", "integer"],
    ["promo", "boolean"],
    ["is_new", "boolean"],
    ["hit", "boolean"],
    ["adult", "boolean"],
    ["unit", "text"],
    ["available_count", "float"],
    ["package_quantity", "float"],
    ["package_unit", "text"],
    ["composition_original", "text"],
    ["composition_normalized", "text"],
    ["producer_name", "text"],
    ["producer_country", "text"],
    ["primary_category_id", "integer"],
    ["settlement_id", "integer"],
    ["observed_at", "timestamp"],
    ["created_at", "timestamp"],
    ["updated_at", "timestamp"],
  ],
  catalog_product_assets: [
    ["id", "bigint"],
    ["product_id", "integer"],
    ["asset_kind", "text"],
    ["sort_order", "integer"],
    ["value", "text"],
    ["created_at", "timestamp"],
    ["updated_at", "timestamp"],
  ],
  catalog_product_snapshots: [
    ["id", "bigint"],
    ["canonical_product_id", "text"],
    ["parser_name", "text"],
    ["source_id", "text"],
    ["source_run_id", "text"],
    ["receiver_product_id", "integer"],
    ["receiver_artifact_id", "integer"],
    ["receiver_sort_order", "integer"],
    ["source_event_uid", "text"],
    ["content_fingerprint", "text"],
    ["valid_from_at", "timestamp"],
    ["valid_to_at", "timestamp"],
    ["observed_at", "timestamp"],
    ["created_at", "timestamp"],
    ["price", "numeric"],
    ["discount_price", "numeric"],
    ["loyal_price", "numeric"],
    ["price_unit", "text"],
    ["available_count", "float"],
  ],
  converter_sync_state: [
    ["key", "text"],
    ["value", "text"],
    ["updated_at", "timestamp"],
  ],
};
