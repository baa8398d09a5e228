/** Source listings (catalog_products rows) reduced to what /products filters, groups and sorts on. */
import type { Row } from "../db/source.js";
import { type Instant, parseStoredInstant } from "./time.js";
import { bool, float, fold, int, text } from "./values.js";

export interface Listing {
  rowId: unknown;
  canonicalId: string;
  parserName: string;
  storeKey: string;
  title: string | null;
  titleKey: string;
  normKey: string;
  brand: string | null;
  brandKey: string;
  /** First non-null of discount_price, loyal_price, price. */
  price: number | null;
  priceUnit: string | null;
  rating: number | null;
  promo: boolean | null;
  isNew: boolean | null;
  hit: boolean | null;
  adult: boolean | null;
  categoryId: number | null;
  settlementId: number | null;
  observedAt: Instant | null;
  updatedAt: Instant | null;
  id: number;
}

export function toListing(row: Row): Listing | null {
  if (row.canonical_product_id === null || row.canonical_product_id === undefined) return null;
  const parserName = String(row.parser_name ?? "");
  const rawBrand = row.brand === null || row.brand === undefined ? "" : String(row.brand);
  return {
    rowId: row.id,
    id: int(row.id) ?? Number.MAX_SAFE_INTEGER,
    canonicalId: String(row.canonical_product_id),
    parserName,
    storeKey: fold(parserName),
    title: text(row.title_original),
    titleKey: fold(String(row.title_original ?? "")),
    normKey: fold(String(row.title_normalized_no_stopwords ?? "")),
    brand: text(row.brand),
    brandKey: fold(rawBrand),
    price: float(row.discount_price) ?? float(row.loyal_price) ?? float(row.price),
    priceUnit: text(row.price_unit),
    rating: float(row.rating),
    promo: bool(row.promo),
    isNew: bool(row.is_new),
    hit: bool(row.hit),
    adult: bool(row.adult),
    categoryId: int(row.primary_category_id),
    settlementId: int(row.settlement_id),
    observedAt: parseStoredInstant(row.observed_at),
    updatedAt: parseStoredInstant(row.updated_at),
  };
}

export interface ListingFilter {
  q?: string | undefined;
  parserName?: string | undefined;
  categoryId?: number | undefined;
  settlementId?: number | undefined;
  brand?: string | undefined;
  promo?: boolean | undefined;
  isNew?: boolean | undefined;
  hit?: boolean | undefined;
  adult?: boolean | undefined;
  priceMin?: number | undefined;
  priceMax?: number | undefined;
}

/** Normalises a filter the way the original did (q and brand trimmed and lower-cased, empty strings ignored). */
export function normaliseFilter(filter: ListingFilter): ListingFilter {
  const q = filter.q === undefined || filter.q === "" ? undefined : fold(filter.q.trim());
  return {
    ...filter,
    q: q === "" ? undefined : q,
    parserName: filter.parserName === "" ? undefined : filter.parserName,
    brand: filter.brand === undefined || filter.brand === "" ? undefined : fold(filter.brand.trim()),
  };
}

export function isEmptyFilter(f: ListingFilter): boolean {
  return Object.values(f).every((v) => v === undefined);
}

/** A predicate over listings; q matches as a literal substring (no LIKE wildcards). */
export function matcher(f: ListingFilter): (l: Listing) => boolean {
  const checks: Array<(l: Listing) => boolean> = [];
  const { q, brand, priceMin, priceMax } = f;
  if (q !== undefined) checks.push((l) => l.titleKey.includes(q) || l.normKey.includes(q) || l.brandKey.includes(q));
  if (f.parserName !== undefined) checks.push((l) => l.parserName === f.parserName);
  if (f.categoryId !== undefined) checks.push((l) => l.categoryId === f.categoryId);
  if (f.settlementId !== undefined) checks.push((l) => l.settlementId === f.settlementId);
  if (brand !== undefined) checks.push((l) => l.brandKey === brand);
  if (f.promo !== undefined) checks.push((l) => l.promo === f.promo);
  if (f.isNew !== undefined) checks.push((l) => l.isNew === f.isNew);
  if (f.hit !== undefined) checks.push((l) => l.hit === f.hit);
  if (f.adult !== undefined) checks.push((l) => l.adult === f.adult);
  if (priceMin !== undefined) checks.push((l) => l.price !== null && l.price >= priceMin);
  if (priceMax !== undefined) checks.push((l) => l.price !== null && l.price <= priceMax);
  return (l) => checks.every((check) => check(l));
}
