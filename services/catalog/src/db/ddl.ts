/**
 * The converter's catalog schema (the tables and columns the original service reads), for the
 * demo generator, the benchmark and the tests. The service itself never runs it: it only reads.
 */
import type { Dialect } from "@platform/core";

export function catalogDdl(dialect: Dialect): string {
  const pg = dialect === "postgres";
  const id = pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT";
  const ts = pg ? "TIMESTAMPTZ" : "DATETIME";
  const money = "NUMERIC(12,4)";
  const float = pg ? "DOUBLE PRECISION" : "FLOAT";
  const bool = "BOOLEAN";
  return `
CREATE TABLE IF NOT EXISTS catalog_products (
  id ${id},
  canonical_product_id VARCHAR(36) NOT NULL,
  parser_name VARCHAR(64) NOT NULL,
  source_id VARCHAR(255) NOT NULL,
  plu VARCHAR(128),
  sku VARCHAR(128),
  source_page_url TEXT,
  title_original TEXT NOT NULL,
  title_normalized_no_stopwords TEXT NOT NULL,
  brand VARCHAR(255),
  description TEXT,
  price ${money},
  discount_price ${money},
  loyal_price ${money},
  price_unit VARCHAR(32),
  rating ${float},
  reviews_count INTEGER,
  promo ${bool},
  is_new ${bool},
  hit ${bool},
  adult ${bool},
  unit VARCHAR(32) NOT NULL,
  available_count ${float},
  package_quantity ${float},
  package_unit VARCHAR(32),
  composition_original TEXT,
  composition_normalized TEXT,
  producer_name TEXT,
  producer_country TEXT,
  primary_category_id INTEGER,
  settlement_id INTEGER,
  observed_at ${ts} NOT NULL,
  created_at ${ts} NOT NULL,
  updated_at ${ts} NOT NULL,
  CONSTRAINT uq_catalog_products_source UNIQUE (parser_name, source_id)
);
CREATE INDEX IF NOT EXISTS ix_catalog_products_canonical_product_id ON catalog_products (canonical_product_id);
CREATE INDEX IF NOT EXISTS ix_catalog_products_primary_category_id ON catalog_products (primary_category_id);
CREATE INDEX IF NOT EXISTS ix_catalog_products_settlement_id ON catalog_products (settlement_id);
CREATE INDEX IF NOT EXISTS ix_catalog_products_observed_at ON catalog_products (observed_at);

CREATE TABLE IF NOT EXISTS catalog_product_snapshots (
  id ${id},
  canonical_product_id VARCHAR(36) NOT NULL,
  parser_name VARCHAR(64) NOT NULL,
  source_id VARCHAR(255) NOT NULL,
  source_run_id VARCHAR(64),
  receiver_product_id INTEGER,
  receiver_artifact_id INTEGER,
  receiver_sort_order INTEGER,
  source_event_uid VARCHAR(191),
  content_fingerprint VARCHAR(64),
  valid_from_at ${ts},
  valid_to_at ${ts},
  observed_at ${ts} NOT NULL,
  created_at ${ts} NOT NULL,
  price ${money},
  discount_price ${money},
  loyal_price ${money},
  price_unit VARCHAR(32),
  available_count ${float},
  CONSTRAINT uq_cps_event UNIQUE (source_event_uid)
);
CREATE INDEX IF NOT EXISTS ix_cps_canonical_product_id ON catalog_product_snapshots (canonical_product_id);
CREATE INDEX IF NOT EXISTS ix_cps_parser_name ON catalog_product_snapshots (parser_name);
CREATE INDEX IF NOT EXISTS ix_cps_source_id ON catalog_product_snapshots (source_id);
CREATE INDEX IF NOT EXISTS ix_cps_content_fingerprint ON catalog_product_snapshots (content_fingerprint);
CREATE INDEX IF NOT EXISTS ix_cps_valid_from_at ON catalog_product_snapshots (valid_from_at);
CREATE INDEX IF NOT EXISTS ix_cps_valid_to_at ON catalog_product_snapshots (valid_to_at);
CREATE INDEX IF NOT EXISTS ix_cps_observed_at ON catalog_product_snapshots (observed_at);
CREATE INDEX IF NOT EXISTS ix_cps_created_at ON catalog_product_snapshots (created_at);

CREATE TABLE IF NOT EXISTS catalog_product_assets (
  id ${id},
  product_id INTEGER NOT NULL,
  asset_kind VARCHAR(32) NOT NULL,
  sort_order INTEGER NOT NULL,
  value TEXT NOT NULL,
  created_at ${ts} NOT NULL,
  updated_at ${ts} NOT NULL,
  CONSTRAINT uq_catalog_product_assets UNIQUE (product_id, asset_kind, sort_order)
);
CREATE INDEX IF NOT EXISTS ix_catalog_product_assets_product_id ON catalog_product_assets (product_id);

CREATE TABLE IF NOT EXISTS catalog_categories (
  id ${id},
  category_key VARCHAR(191) NOT NULL UNIQUE,
  parser_name VARCHAR(64) NOT NULL,
  source_uid VARCHAR(128),
  parent_source_uid VARCHAR(128),
  title TEXT,
  title_normalized TEXT,
  alias TEXT,
  depth INTEGER,
  sort_order INTEGER,
  first_seen_at ${ts} NOT NULL,
  last_seen_at ${ts} NOT NULL,
  updated_at ${ts} NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_catalog_categories_parser_name ON catalog_categories (parser_name);
CREATE INDEX IF NOT EXISTS ix_catalog_categories_source_uid ON catalog_categories (source_uid);

CREATE TABLE IF NOT EXISTS catalog_settlements (
  id ${id},
  geo_key VARCHAR(191) NOT NULL UNIQUE,
  country VARCHAR(64),
  country_normalized VARCHAR(128),
  region TEXT,
  region_normalized TEXT,
  name VARCHAR(255),
  name_normalized VARCHAR(255),
  settlement_type VARCHAR(32),
  alias VARCHAR(255),
  latitude ${float},
  longitude ${float},
  first_seen_at ${ts} NOT NULL,
  last_seen_at ${ts} NOT NULL,
  updated_at ${ts} NOT NULL
);

CREATE TABLE IF NOT EXISTS converter_sync_state (
  "key" VARCHAR(191) PRIMARY KEY,
  value TEXT,
  updated_at ${ts}
);
`;
}

/** The CREATE TABLE part of catalogDdl: bulk loaders insert first and index afterwards. */
export function catalogTablesDdl(dialect: Dialect): string {
  return splitDdl(dialect).tables;
}

/** The CREATE INDEX part of catalogDdl (secondary indexes only; UNIQUE constraints stay with the tables). */
export function catalogIndexesDdl(dialect: Dialect): string {
  return splitDdl(dialect).indexes;
}

function splitDdl(dialect: Dialect): { tables: string; indexes: string } {
  const lines = catalogDdl(dialect).split("\n");
  const isIndex = (line: string) => line.startsWith("CREATE INDEX");
  return {
    tables: lines.filter((line) => !isIndex(line)).join("\n"),
    indexes: lines.filter(isIndex).join("\n"),
  };
}
