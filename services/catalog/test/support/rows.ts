/** Row builders for the catalog tables, rendered as INSERT statements for either backend. */

export const backends = ["sqlite", "postgres"] as const;
export type Backend = (typeof backends)[number];

/** A stored timestamp without an offset: naive text in SQLite, the same instant in UTC on PostgreSQL. */
export class Naive {
  constructor(readonly text: string) {}
}
export const naive = (text: string): Naive => new Naive(text);

export type Value = string | number | boolean | null | Naive;
export type Row = Record<string, Value>;

function literal(backend: Backend, value: Value): string {
  if (value === null) return "NULL";
  if (value instanceof Naive) return literal(backend, backend === "sqlite" ? value.text : `${value.text}+00:00`);
  if (typeof value === "boolean") return backend === "sqlite" ? (value ? "1" : "0") : value ? "TRUE" : "FALSE";
  if (typeof value === "number") return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

/** INSERT statements for rows of one table (each row lists its own columns). */
export function insert(backend: Backend, table: string, rows: readonly Row[]): string {
  return rows
    .map((row) => {
      const columns = Object.keys(row).map((c) => `"${c}"`);
      const values = Object.values(row).map((v) => literal(backend, v));
      return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${values.join(", ")});`;
    })
    .join("\n");
}

/** `2026-<day>T<time>+00:00`, the fixture's timestamp form (ISO text with an offset, as the original tests stored). */
export const T = (day: string, time: string): string => `2026-${day}T${time}+00:00`;

/** A catalog_products row with every NOT NULL column filled and the nullable ones empty. */
export function product(row: Row & { id: number; canonical_product_id: string; parser_name: string; source_id: string }): Row {
  const at = row.observed_at ?? T("02-01", "00:00:00");
  return {
    plu: null,
    sku: null,
    title_original: `Product ${row.source_id}`,
    title_normalized_no_stopwords: `product ${row.source_id}`,
    brand: null,
    price: null,
    discount_price: null,
    loyal_price: null,
    price_unit: null,
    rating: null,
    reviews_count: null,
    promo: null,
    is_new: null,
    hit: null,
    adult: null,
    unit: "PCE",
    available_count: null,
    package_quantity: null,
    package_unit: null,
    composition_original: null,
    composition_normalized: null,
    primary_category_id: null,
    settlement_id: null,
    observed_at: at,
    created_at: at,
    updated_at: at,
    ...row,
  };
}

/** A catalog_product_snapshots row; valid_from/to default to observed_at (what the converter writes). */
export function snapshot(
  row: Row & { id: number; canonical_product_id: string; parser_name: string; source_id: string; observed_at: Value },
): Row {
  return {
    source_run_id: null,
    receiver_product_id: null,
    receiver_artifact_id: null,
    receiver_sort_order: null,
    source_event_uid: `evt-${row.id}`,
    content_fingerprint: `fp-${row.id}`,
    valid_from_at: row.observed_at,
    valid_to_at: row.observed_at,
    created_at: row.observed_at,
    price: null,
    discount_price: null,
    loyal_price: null,
    price_unit: "RUB",
    available_count: null,
    ...row,
  };
}

export function image(id: number, productId: number, value: string, sortOrder = 0): Row {
  const at = T("02-01", "00:00:00");
  return { id, product_id: productId, asset_kind: "image_url", sort_order: sortOrder, value, created_at: at, updated_at: at };
}

export function category(row: Row & { id: number; category_key: string; parser_name: string }): Row {
  const at = T("01-01", "00:00:00");
  const base: Row = {
    source_uid: null,
    parent_source_uid: null,
    title: null,
    title_normalized: null,
    alias: null,
    depth: null,
    sort_order: null,
  };
  return { ...base, first_seen_at: at, last_seen_at: at, updated_at: at, ...row };
}

export function settlement(row: Row & { id: number; geo_key: string }): Row {
  const at = T("01-01", "00:00:00");
  const base: Row = { country: null, country_normalized: null, region: null, region_normalized: null, name: null, name_normalized: null };
  return {
    ...base,
    settlement_type: null,
    alias: null,
    latitude: null,
    longitude: null,
    first_seen_at: at,
    last_seen_at: at,
    updated_at: at,
    ...row,
  };
}

/** Image URL of catalog_products row `id` in the fixture. */
export const imageOf = (sourceId: string): string => `https://img.example.com/${sourceId}.jpg`;
