/**
 * Every SQL statement the catalog service runs. All are read-only and parameterised; columns
 * the connected schema lacks are read as NULL (see schema.ts).
 */
import { ident, join, list, type Sql, sql } from "@platform/core";
import { hasColumn, hasTable, type SchemaFacts, type TableName } from "./schema.js";
import type { CatalogSource, Row } from "./source.js";

function columns(facts: SchemaFacts, table: TableName, alias: string, names: readonly string[], prefix = ""): Sql {
  return join(
    names.map((name) =>
      hasColumn(facts, table, name) ? sql`${ident(alias, name)} AS ${ident(prefix + name)}` : sql`NULL AS ${ident(prefix + name)}`,
    ),
  );
}

/** Orders by a timestamp column as an instant: SQLite stores text in mixed formats. */
function byInstant(source: CatalogSource, column: Sql, direction: "ASC" | "DESC"): Sql {
  const dir = direction === "ASC" ? sql`ASC` : sql`DESC`;
  return source.dialect === "sqlite" ? sql`julianday(${column}) ${dir}` : sql`${column} ${dir}`;
}

export const LISTING_COLUMNS = [
  "id",
  "canonical_product_id",
  "parser_name",
  "title_original",
  "title_normalized_no_stopwords",
  "brand",
  "price",
  "discount_price",
  "loyal_price",
  "price_unit",
  "rating",
  "promo",
  "is_new",
  "hit",
  "adult",
  "primary_category_id",
  "settlement_id",
  "observed_at",
  "updated_at",
] as const;

export const SOURCE_COLUMNS = [
  "id",
  "canonical_product_id",
  "parser_name",
  "source_id",
  "plu",
  "sku",
  "title_original",
  "title_normalized_no_stopwords",
  "brand",
  "price",
  "discount_price",
  "loyal_price",
  "price_unit",
  "rating",
  "reviews_count",
  "promo",
  "is_new",
  "hit",
  "adult",
  "unit",
  "available_count",
  "package_quantity",
  "package_unit",
  "composition_original",
  "composition_normalized",
  "observed_at",
  "primary_category_id",
  "settlement_id",
] as const;

export const SNAPSHOT_COLUMNS = [
  "id",
  "canonical_product_id",
  "parser_name",
  "source_id",
  "source_run_id",
  "receiver_product_id",
  "receiver_artifact_id",
  "receiver_sort_order",
  "source_event_uid",
  "content_fingerprint",
  "price",
  "discount_price",
  "loyal_price",
  "price_unit",
  "available_count",
  "valid_from_at",
  "valid_to_at",
  "observed_at",
  "created_at",
] as const;

export const CATEGORY_COLUMNS = [
  "id",
  "category_key",
  "parser_name",
  "source_uid",
  "parent_source_uid",
  "title",
  "title_normalized",
  "alias",
  "depth",
  "sort_order",
  "first_seen_at",
  "last_seen_at",
  "updated_at",
] as const;

export const SETTLEMENT_COLUMNS = [
  "id",
  "geo_key",
  "country",
  "country_normalized",
  "region",
  "region_normalized",
  "name",
  "name_normalized",
  "settlement_type",
  "alias",
  "latitude",
  "longitude",
  "first_seen_at",
  "last_seen_at",
  "updated_at",
] as const;

export function ping(source: CatalogSource): Promise<Row[]> {
  return source.all(sql`SELECT 1 AS ok FROM catalog_products LIMIT 1`);
}

/** Every source listing, grouped by product (equal ids adjacent), for the in-memory index. */
export function eachListing(source: CatalogSource, facts: SchemaFacts, visit: (row: Row) => void): Promise<void> {
  return source.each(
    sql`SELECT ${columns(facts, "catalog_products", "p", LISTING_COLUMNS)} FROM catalog_products p ORDER BY p.canonical_product_id, p.id`,
    visit,
  );
}

export function allCategories(source: CatalogSource, facts: SchemaFacts): Promise<Row[]> {
  if (!hasTable(facts, "catalog_categories")) return Promise.resolve([]);
  return source.all(sql`SELECT ${columns(facts, "catalog_categories", "c", CATEGORY_COLUMNS)} FROM catalog_categories c`);
}

export function allSettlements(source: CatalogSource, facts: SchemaFacts): Promise<Row[]> {
  if (!hasTable(facts, "catalog_settlements")) return Promise.resolve([]);
  return source.all(sql`SELECT ${columns(facts, "catalog_settlements", "s", SETTLEMENT_COLUMNS)} FROM catalog_settlements s`);
}

/** Image URLs of the given listing rows; `primaryOnly` keeps sort_order 0. Ordered by row, then sort_order. */
export function images(source: CatalogSource, facts: SchemaFacts, rowIds: readonly unknown[], primaryOnly: boolean): Promise<Row[]> {
  if (rowIds.length === 0 || !hasTable(facts, "catalog_product_assets")) return Promise.resolve([]);
  const primary = primaryOnly ? sql` AND a.sort_order = 0` : sql``;
  return source.all(
    sql`SELECT a.product_id, a.value FROM catalog_product_assets a
        WHERE a.asset_kind = 'image_url'${primary} AND a.product_id IN ${list(rowIds)}
        ORDER BY a.product_id, a.sort_order, a.id`,
  );
}

export async function listingExists(source: CatalogSource, id: string): Promise<boolean> {
  return (await source.all(sql`SELECT 1 AS ok FROM catalog_products WHERE canonical_product_id = ${id} LIMIT 1`)).length > 0;
}

export async function snapshotExists(source: CatalogSource, facts: SchemaFacts, id: string): Promise<boolean> {
  if (!hasTable(facts, "catalog_product_snapshots")) return false;
  return (await source.all(sql`SELECT 1 AS ok FROM catalog_product_snapshots WHERE canonical_product_id = ${id} LIMIT 1`)).length > 0;
}

async function count(source: CatalogSource, from: Sql): Promise<number> {
  const rows = await source.all<{ n: unknown }>(sql`SELECT count(*) AS n ${from}`);
  return Number(rows[0]?.n ?? 0);
}

export interface Page {
  limit: number;
  offset: number;
}

export async function sourcesPage(
  source: CatalogSource,
  facts: SchemaFacts,
  id: string,
  direction: "ASC" | "DESC",
  page: Page,
): Promise<{ rows: Row[]; total: number }> {
  const from = sql`FROM catalog_products p WHERE p.canonical_product_id = ${id}`;
  const category = hasTable(facts, "catalog_categories")
    ? {
        cols: columns(facts, "catalog_categories", "c", ["id", "source_uid", "title"], "category__"),
        join: sql`LEFT JOIN catalog_categories c ON c.id = p.primary_category_id`,
      }
    : { cols: sql`NULL AS category__id, NULL AS category__source_uid, NULL AS category__title`, join: sql`` };
  const settlement = hasTable(facts, "catalog_settlements")
    ? {
        cols: columns(facts, "catalog_settlements", "s", ["id", "name", "region", "country"], "settlement__"),
        join: sql`LEFT JOIN catalog_settlements s ON s.id = p.settlement_id`,
      }
    : { cols: sql`NULL AS settlement__id, NULL AS settlement__name, NULL AS settlement__region, NULL AS settlement__country`, join: sql`` };
  const [rows, total] = await Promise.all([
    source.all(
      sql`SELECT ${columns(facts, "catalog_products", "p", SOURCE_COLUMNS)}, ${category.cols}, ${settlement.cols}
          FROM catalog_products p ${category.join} ${settlement.join}
          WHERE p.canonical_product_id = ${id}
          ORDER BY ${byInstant(source, sql`p.observed_at`, direction)}, p.id ASC
          LIMIT ${page.limit} OFFSET ${page.offset}`,
    ),
    count(source, from),
  ]);
  return { rows, total };
}

export async function snapshotsPage(
  source: CatalogSource,
  facts: SchemaFacts,
  filter: { id: string; parserName?: string | undefined; sourceId?: string | undefined },
  direction: "ASC" | "DESC",
  page: Page,
): Promise<{ rows: Row[]; total: number }> {
  if (!hasTable(facts, "catalog_product_snapshots")) return { rows: [], total: 0 };
  const where = [sql`s.canonical_product_id = ${filter.id}`];
  if (filter.parserName !== undefined) where.push(sql`s.parser_name = ${filter.parserName}`);
  if (filter.sourceId !== undefined) where.push(sql`s.source_id = ${filter.sourceId}`);
  const condition = join(where, sql` AND `);
  const dir = direction === "ASC" ? sql`ASC` : sql`DESC`;
  const [rows, total] = await Promise.all([
    source.all(
      sql`SELECT ${columns(facts, "catalog_product_snapshots", "s", SNAPSHOT_COLUMNS)} FROM catalog_product_snapshots s
          WHERE ${condition}
          ORDER BY ${byInstant(source, sql`s.observed_at`, direction)}, s.id ${dir}
          LIMIT ${page.limit} OFFSET ${page.offset}`,
    ),
    count(source, sql`FROM catalog_product_snapshots s WHERE ${condition}`),
  ]);
  return { rows, total };
}

export type DynamicsField = "price" | "discount_price" | "loyal_price" | "available_count";

/** Every snapshot of one (product, store, source) triple; the caller filters by instant. */
export function seriesRows(
  source: CatalogSource,
  facts: SchemaFacts,
  triple: { id: string; parserName: string; sourceId: string },
  field: DynamicsField,
): Promise<Row[]> {
  if (!hasTable(facts, "catalog_product_snapshots")) return Promise.resolve([]);
  const cols = columns(facts, "catalog_product_snapshots", "s", ["id", "observed_at", "valid_from_at", "valid_to_at"]);
  const value = hasColumn(facts, "catalog_product_snapshots", field) ? sql`${ident("s", field)} AS value` : sql`NULL AS value`;
  return source.all(
    sql`SELECT ${cols}, ${value} FROM catalog_product_snapshots s
        WHERE s.canonical_product_id = ${triple.id} AND s.parser_name = ${triple.parserName} AND s.source_id = ${triple.sourceId}`,
  );
}

const CURSOR_PREFIX = "receiver_cursor:";

export function cursors(source: CatalogSource, facts: SchemaFacts, parserKey: string | undefined): Promise<Row[]> {
  if (!hasTable(facts, "converter_sync_state")) return Promise.resolve([]);
  const updated = hasColumn(facts, "converter_sync_state", "updated_at") ? sql`updated_at` : sql`NULL`;
  const where =
    parserKey === undefined ? sql`substr("key", 1, ${CURSOR_PREFIX.length}) = ${CURSOR_PREFIX}` : sql`"key" = ${CURSOR_PREFIX + parserKey}`;
  return source.all(sql`SELECT "key" AS key, value, ${updated} AS updated_at FROM converter_sync_state WHERE ${where}`);
}

export { CURSOR_PREFIX };
