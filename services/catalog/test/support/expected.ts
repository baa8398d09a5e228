/** Expected payloads for the original fixture (support/fixture.ts), shared by several suites. */
import { imageOf } from "./fixture.js";

/** prod-1: representative row is id 2 (chizhik, latest observed_at); aggregates over rows 1 and 2. */
export const prod1Item = {
  canonical_product_id: "prod-1",
  title: "Prostokvashino milk 1 l",
  brand: null,
  price_from: 90,
  price_unit: "RUB/pc",
  sources_count: 2,
  observed_at_latest: "2026-02-04T09:00:00Z",
  image_url: imageOf("ch-1"),
  parsers: ["chizhik", "fixprice"],
};

export const prod2Item = {
  canonical_product_id: "prod-2",
  title: "Kefir Domik 900 g",
  brand: "Village House",
  price_from: 115,
  price_unit: "RUB",
  sources_count: 1,
  observed_at_latest: "2026-02-05T09:00:00Z",
  image_url: imageOf("fp-2"),
  parsers: ["fixprice"],
};

export const productItemKeys = [
  "brand",
  "canonical_product_id",
  "image_url",
  "observed_at_latest",
  "parsers",
  "price_from",
  "price_unit",
  "sources_count",
  "title",
];

export const category1 = { id: 1, source_uid: "cat-milk", title: "Milk" };
export const settlement1 = { id: 1, name: "Moscow", region: "Moscow", country: "RUS" };

/** /products/prod-1/sources item for catalog_products row 1. */
export const source1 = {
  id: 1,
  canonical_product_id: "prod-1",
  parser_name: "fixprice",
  source_id: "fp-1",
  plu: "PLU-1",
  sku: "SKU-1",
  title_original: "Milk Prostokvashino 1L",
  title_normalized_no_stopwords: "milk prostokvashino 1l",
  brand: "Prostokvashino",
  price: 100,
  discount_price: 90,
  loyal_price: 85,
  price_unit: "RUB",
  rating: 4.5,
  reviews_count: 12,
  promo: true,
  is_new: false,
  hit: false,
  adult: false,
  unit: "PCE",
  available_count: 5.5,
  package_quantity: 1,
  package_unit: "L",
  composition_original: "Whole milk",
  composition_normalized: "whole milk",
  observed_at: "2026-02-03T09:00:00Z",
  image_urls: [imageOf("fp-1")],
  primary_category: category1,
  settlement: settlement1,
};

/** /products/prod-1/snapshots item for snapshot 103. */
export const snapshot103 = {
  id: 103,
  canonical_product_id: "prod-1",
  parser_name: "fixprice",
  source_id: "fp-1",
  source_run_id: "receiver:run-1:1",
  receiver_product_id: 1,
  receiver_artifact_id: 1003,
  receiver_sort_order: 3,
  source_event_uid: "evt-103",
  content_fingerprint: "fp-103",
  price: 80,
  discount_price: null,
  loyal_price: null,
  price_unit: "RUB",
  available_count: 3,
  valid_from_at: "2026-02-03T09:00:00Z",
  valid_to_at: "2026-02-03T09:00:00Z",
  observed_at: "2026-02-03T09:00:00Z",
  created_at: "2026-02-03T09:00:05Z",
};

export const ids = (items: readonly { canonical_product_id: string }[]): string[] => items.map((i) => i.canonical_product_id);
