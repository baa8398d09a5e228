/**
 * One data version of the catalog held in memory: the product index, categories and
 * settlements (small tables, filtered and paged in memory), and the schema facts.
 */
import { allCategories, allSettlements, eachListing } from "../db/queries.js";
import { columnType, readSchema, type SchemaFacts } from "../db/schema.js";
import type { CatalogSource, Row } from "../db/source.js";
import { type CategoryItem, categoryItem, type SettlementItem, settlementItem } from "./format.js";
import { type Listing, toListing } from "./listings.js";
import { ProductIndex, regionKey } from "./product-index.js";
import { type Instant, parseStoredInstant } from "./time.js";
import { fold, int } from "./values.js";

export interface Entry<T> {
  item: T;
  /** Raw stored values the exact-match filters compare with. */
  raw: Row;
  /** Lower-cased texts the `q` filter searches. */
  searchKeys: string[];
}

export interface CatalogView {
  token: string;
  facts: SchemaFacts;
  index: ProductIndex;
  /** Whether canonical_product_id is a native uuid column (later converter schemas). */
  uuidIds: boolean;
  categories: Entry<CategoryItem>[];
  categoryById: Map<number, CategoryItem>;
  settlements: Entry<SettlementItem>[];
  settlementById: Map<number, SettlementItem>;
}

function newestFirst(a: { updated: Instant | null; id: number }, b: { updated: Instant | null; id: number }): number {
  if (a.updated !== b.updated) {
    if (a.updated === null) return 1;
    if (b.updated === null) return -1;
    return b.updated - a.updated;
  }
  return a.id - b.id;
}

function entries<T extends { id: number | null }>(rows: Row[], toItem: (row: Row) => T, searched: readonly string[]): Entry<T>[] {
  return rows
    .map((raw) => ({
      entry: { item: toItem(raw), raw, searchKeys: searched.map((c) => fold(String(raw[c] ?? ""))) },
      updated: parseStoredInstant(raw.updated_at),
      id: int(raw.id) ?? Number.MAX_SAFE_INTEGER,
    }))
    .sort(newestFirst)
    .map(({ entry }) => entry);
}

function byId<T extends { id: number | null }>(list: Entry<T>[]): Map<number, T> {
  const map = new Map<number, T>();
  for (const { item } of list) if (item.id !== null) map.set(item.id, item);
  return map;
}

export async function loadView(source: CatalogSource, token: string): Promise<CatalogView> {
  const facts = await readSchema(source);
  const [categoryRows, settlementRows] = await Promise.all([allCategories(source, facts), allSettlements(source, facts)]);
  const listings: Listing[] = [];
  await eachListing(source, facts, (row) => {
    const listing = toListing(row);
    if (listing) listings.push(listing);
  });
  const regionOfSettlement = new Map<number, string>();
  for (const s of settlementRows) {
    const id = int(s.id);
    if (id !== null) regionOfSettlement.set(id, regionKey(s.region, s.region_normalized));
  }
  const categories = entries(categoryRows, categoryItem, ["title", "title_normalized", "alias", "source_uid"]);
  const settlements = entries(settlementRows, settlementItem, ["name", "alias", "region", "country"]);
  const index = new ProductIndex(listings, regionOfSettlement);
  // Group and order once now, so the first request for the default page does not pay for it.
  index.query({}, "observed_at_desc");
  return {
    token,
    facts,
    index,
    uuidIds: columnType(facts, "catalog_products", "canonical_product_id") === "uuid",
    categories,
    categoryById: byId(categories),
    settlements,
    settlementById: byId(settlements),
  };
}
