/**
 * catalog_products (the current projection: one row per product and store) and its images. A
 * row's prices, stock and observed_at are those of its latest snapshot, as the converter keeps them.
 */
import type { CatalogPlan } from "./plan.js";
import { NONE, PriceWalk } from "./prices.js";
import { mix, type Random } from "./random.js";
import type { Settlements } from "./reference.js";
import type { DemoRow } from "./tables.js";
import { MICROS_PER_DAY, MICROS_PER_MINUTE } from "./time.js";
import { KINDS, STOPWORDS } from "./words.js";

/** Per-store first source_id: each site numbers its goods its own way. */
const SOURCE_ID_BASE = [3_000_000, 600_000, 100_000, 1_000_000_000, 4_000_000, 200_000];

export interface Listings {
  /** source_id text of each listing, for the snapshots. */
  sourceIds: string[];
  rows: number;
  assets: number;
}

export function* listingRows(
  rng: Random,
  plan: CatalogPlan,
  categories: Int32Array[],
  settlements: Settlements,
): Generator<DemoRow, Listings> {
  const { stores } = plan.options;
  const pickSettlement = weightedPicker(rng, settlements);
  const counters = stores.map(() => 0);
  const newSince = plan.runs - Math.ceil((30 * MICROS_PER_DAY) / plan.runMicros);
  const result: Listings = { sourceIds: [], rows: 0, assets: 0 };

  for (let s = 0; s < plan.sourceCount; s++) {
    const product = plan.products[plan.sourceProduct[s] ?? 0];
    const storeIndex = plan.sourceStore[s] ?? 0;
    const store = stores[storeIndex];
    const kind = product && KINDS[product.kind];
    if (!product || !store || !kind) throw new Error("inconsistent plan");
    const counter = counters[storeIndex] ?? 0;
    counters[storeIndex] = counter + 1;
    const sourceId = String((SOURCE_ID_BASE[storeIndex] ?? 0) + counter * 3 + rng.int(3));
    result.sourceIds.push(sourceId);

    const current = currentState(plan, rng, s);
    const firstRun = plan.sourceFirstRun[s] ?? 0;
    const createdAt = plan.sourceTime(s, firstRun) + ingestDelay(s);
    const brand = product.brand >= 0 ? (kind.brands[product.brand] ?? null) : null;
    const variant = kind.variants[product.variant] ?? "";
    const size = kind.sizes[product.size];
    if (!size) throw new Error("inconsistent plan");
    const title = titleFor(store.titleStyle, kind.name, brand, variant, size.label);
    const rating = rng.chance(0.85) ? Math.round((3.5 + 1.5 * Math.sqrt(rng.next())) * 10) / 10 : null;
    const withComposition = kind.composition !== null && rng.chance(0.6);
    const id = s + 1;
    yield {
      table: "catalog_products",
      values: [
        id,
        product.id,
        store.parserName,
        sourceId,
        storeIndex % 2 === 0 ? String(rng.between(100_000, 999_999)) : null,
        storeIndex % 2 === 1 ? `${store.parserName.slice(0, 3).toUpperCase()}-${sourceId}` : null,
        `https://${store.parserName}.example.com/catalog/${sourceId}`,
        title,
        normalizeTitle(title),
        brand,
        null,
        cents(current.regular),
        cents(current.discount),
        cents(current.loyal),
        "RUB",
        rating,
        rating === null || rng.chance(0.1) ? null : Math.floor(Math.exp(rng.next() * 8)),
        rng.chance(0.05) ? null : current.discount !== NONE,
        rng.chance(0.05) ? null : firstRun >= newSince,
        rng.chance(0.05) ? null : rng.chance(0.08),
        rng.chance(0.03) ? null : kind.adult,
        size.saleUnit,
        current.available === NONE ? null : current.available,
        size.quantity,
        size.unit,
        withComposition ? capitalize(kind.composition ?? "") : null,
        withComposition ? (kind.composition ?? "").toLowerCase() : null,
        brand && rng.chance(0.5) ? `ООО «${brand}»` : null,
        rng.chance(0.7) ? "Россия" : null,
        rng.chance(0.03) ? null : categories[storeIndex]?.[product.kind] || null,
        rng.chance(0.05) ? null : pickSettlement(),
        current.observedAt,
        createdAt,
        Math.max(current.observedAt, createdAt) + ingestDelay(s + 1),
      ],
    };
    result.rows++;
    const images = 1 + rng.int(3);
    for (let n = 0; n < images; n++) {
      const url = `https://images.example.com/${store.parserName}/${sourceId}/${n + 1}.jpg`;
      result.assets++;
      // Explicit ids, numbered in insertion order as an autoincrement key would be, so every database gets the same ones.
      yield { table: "catalog_product_assets", values: [result.assets, id, "image_url", n, url, createdAt, createdAt] };
    }
  }
  return result;
}

/** How long after an observation the converter wrote it: a few minutes, stable per key. */
export function ingestDelay(key: number): number {
  return (1 + (mix(key, 3) % 20)) * MICROS_PER_MINUTE;
}

export function cents(value: number): number | null {
  return value === NONE ? null : value / 100;
}

interface Current {
  regular: number;
  discount: number;
  loyal: number;
  available: number;
  observedAt: number;
}

/** The latest snapshot's content; a listing without snapshots (tiny catalogs only) gets a fresh price. */
function currentState(plan: CatalogPlan, rng: Random, s: number): Current {
  const end = plan.sourceOffset[s + 1] ?? 0;
  if (end > (plan.sourceOffset[s] ?? 0)) {
    const at = end - 1;
    const lastRun = plan.snapLastRun[at] ?? 0;
    const point = lastRun < plan.pointBeforeRun;
    return {
      regular: plan.snapPrice[at] ?? NONE,
      discount: plan.snapDiscount[at] ?? NONE,
      loyal: plan.snapLoyal[at] ?? NONE,
      available: plan.snapAvailable[at] ?? NONE,
      observedAt: plan.sourceTime(s, point ? (plan.snapFirstRun[at] ?? 0) : lastRun),
    };
  }
  const store = plan.options.stores[plan.sourceStore[s] ?? 0];
  if (!store) throw new Error("inconsistent plan");
  const lastRun = plan.sourceLastRun[s] ?? 0;
  const state = new PriceWalk(rng, store, plan.sourceBaseCents[s] ?? 0).start(lastRun / plan.runs);
  return { ...state, observedAt: plan.sourceTime(s, lastRun) };
}

function titleFor(style: number, name: string, brand: string | null, variant: string, size: string): string {
  const parts =
    style === 0
      ? [name, brand, variant, size]
      : style === 1
        ? [name, variant ? `${variant},` : "", brand ? `${brand},` : "", size]
        : [brand, name.toLowerCase(), variant, size];
  const title = parts.filter(Boolean).join(" ").replace(/,$/, "");
  return capitalize(title);
}

/** What the converter stores in title_normalized_no_stopwords: lower case, no punctuation, no stopwords. */
export function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[«»"'();:!?]/g, " ")
    .replace(/[.,](?=\s|$)/g, " ")
    .split(/\s+/)
    .filter((word) => word && !STOPWORDS.has(word))
    .join(" ");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function weightedPicker(rng: Random, settlements: Settlements): () => number {
  const total = settlements.weights.reduce((a, b) => a + b, 0);
  return () => {
    let roll = rng.next() * total;
    for (let i = 0; i < settlements.ids.length; i++) {
      roll -= settlements.weights[i] ?? 0;
      if (roll < 0) return settlements.ids[i] ?? 1;
    }
    return settlements.ids[settlements.ids.length - 1] ?? 1;
  };
}
