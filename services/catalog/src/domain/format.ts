/** Response items, shaped exactly as the original service's. */
import type { Row } from "../db/source.js";
import { formatStored } from "./time.js";
import { bool, float, int, text } from "./values.js";

export function categoryItem(row: Row) {
  return {
    id: int(row.id),
    category_key: text(row.category_key),
    parser_name: text(row.parser_name),
    source_uid: text(row.source_uid),
    parent_source_uid: text(row.parent_source_uid),
    title: text(row.title),
    title_normalized: text(row.title_normalized),
    alias: text(row.alias),
    depth: int(row.depth),
    sort_order: int(row.sort_order),
    first_seen_at: formatStored(row.first_seen_at),
    last_seen_at: formatStored(row.last_seen_at),
    updated_at: formatStored(row.updated_at),
  };
}

export function settlementItem(row: Row) {
  return {
    id: int(row.id),
    geo_key: text(row.geo_key),
    country: text(row.country),
    country_normalized: text(row.country_normalized),
    region: text(row.region),
    region_normalized: text(row.region_normalized),
    name: text(row.name),
    name_normalized: text(row.name_normalized),
    settlement_type: text(row.settlement_type),
    alias: text(row.alias),
    latitude: float(row.latitude),
    longitude: float(row.longitude),
    first_seen_at: formatStored(row.first_seen_at),
    last_seen_at: formatStored(row.last_seen_at),
    updated_at: formatStored(row.updated_at),
  };
}

export function sourceItem(row: Row, imageUrls: string[]) {
  return {
    id: int(row.id),
    canonical_product_id: text(row.canonical_product_id),
    parser_name: text(row.parser_name),
    source_id: text(row.source_id),
    plu: text(row.plu),
    sku: text(row.sku),
    title_original: text(row.title_original),
    title_normalized_no_stopwords: text(row.title_normalized_no_stopwords),
    brand: text(row.brand),
    price: float(row.price),
    discount_price: float(row.discount_price),
    loyal_price: float(row.loyal_price),
    price_unit: text(row.price_unit),
    rating: float(row.rating),
    reviews_count: int(row.reviews_count),
    promo: bool(row.promo),
    is_new: bool(row.is_new),
    hit: bool(row.hit),
    adult: bool(row.adult),
    unit: text(row.unit),
    available_count: float(row.available_count),
    package_quantity: float(row.package_quantity),
    package_unit: text(row.package_unit),
    composition_original: text(row.composition_original),
    composition_normalized: text(row.composition_normalized),
    observed_at: formatStored(row.observed_at),
    image_urls: imageUrls,
    primary_category:
      row.category__id === null || row.category__id === undefined
        ? null
        : { id: int(row.category__id), source_uid: text(row.category__source_uid), title: text(row.category__title) },
    settlement:
      row.settlement__id === null || row.settlement__id === undefined
        ? null
        : {
            id: int(row.settlement__id),
            name: text(row.settlement__name),
            region: text(row.settlement__region),
            country: text(row.settlement__country),
          },
  };
}

export function snapshotItem(row: Row) {
  return {
    id: int(row.id),
    canonical_product_id: text(row.canonical_product_id),
    parser_name: text(row.parser_name),
    source_id: text(row.source_id),
    source_run_id: text(row.source_run_id),
    receiver_product_id: int(row.receiver_product_id),
    receiver_artifact_id: int(row.receiver_artifact_id),
    receiver_sort_order: int(row.receiver_sort_order),
    source_event_uid: text(row.source_event_uid),
    content_fingerprint: text(row.content_fingerprint),
    price: float(row.price),
    discount_price: float(row.discount_price),
    loyal_price: float(row.loyal_price),
    price_unit: text(row.price_unit),
    available_count: float(row.available_count),
    valid_from_at: formatStored(row.valid_from_at),
    valid_to_at: formatStored(row.valid_to_at),
    observed_at: formatStored(row.observed_at),
    created_at: formatStored(row.created_at),
  };
}

/** `receiver_cursor:<parser>` rows: value is `<ingested_at>\t<receiver product id>`. */
export function cursorItem(row: Row, prefix: string) {
  const key = String(row.key ?? "");
  const value = row.value === null || row.value === undefined ? "" : String(row.value);
  const tab = value.lastIndexOf("\t");
  const productText = tab === -1 ? "" : value.slice(tab + 1).trim();
  return {
    parser_name: key.slice(prefix.length),
    ingested_at: tab === -1 ? null : text(value.slice(0, tab)),
    product_id: /^[+-]?\d+$/.test(productText) && Number.isSafeInteger(Number(productText)) ? Number(productText) : null,
    updated_at: formatStored(row.updated_at),
  };
}

export type CategoryItem = ReturnType<typeof categoryItem>;
export type SettlementItem = ReturnType<typeof settlementItem>;
