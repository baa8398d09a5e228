/**
 * The catalog's operations, one per route. Product listings and counts come from the
 * in-memory view (refreshed when the database changes); sources, snapshots, dynamics and
 * cursors are read from the database per request.
 */
import { AppError, type Logger } from "@platform/core";
import * as q from "../db/queries.js";
import type { CatalogSource } from "../db/source.js";
import { CatalogUnavailable } from "../db/unavailable.js";
import {
  buildSeries,
  gridDates,
  INTERVALS,
  type IntervalName,
  MAX_POINTS,
  pointCount,
  type SeriesSnapshot,
  toSeriesSnapshot,
} from "./dynamics.js";
import { errors } from "./errors.js";
import { cursorItem, snapshotItem, sourceItem } from "./format.js";
import { type ListingFilter, normaliseFilter } from "./listings.js";
import { type ProductSort, type ProductSummary, SORTS } from "./product-index.js";
import { formatInstant, MICROS_PER_SECOND, parseRequestInstant } from "./time.js";
import { fold, tokens } from "./values.js";
import { type CatalogView, type Entry, loadView } from "./view.js";

export interface Paging {
  limit: number;
  offset: number;
}

export interface Paged<T> {
  items: T[];
  meta: { limit: number; offset: number; total: number };
}

export const FIELDS = ["price", "discount_price", "loyal_price", "available_count"] as const;
type DynamicsField = (typeof FIELDS)[number];

export interface SeriesParams {
  canonical_product_id: string;
  parser_name: string;
  source_id: string;
  field: string;
  date_from: string;
  date_to: string;
  interval: string;
}

function requestInstant(value: string) {
  const parsed = parseRequestInstant(value);
  if ("error" in parsed) {
    throw parsed.error === "empty" ? errors.datetimeEmpty() : parsed.error === "naive" ? errors.datetimeNaive() : errors.datetimeInvalid();
  }
  return parsed;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function page<T>(all: readonly T[], paging: Paging): Paged<T> {
  return { items: all.slice(paging.offset, paging.offset + paging.limit), meta: { ...paging, total: all.length } };
}

function direction(sort: string): "ASC" | "DESC" {
  if (sort === "observed_at_desc") return "DESC";
  if (sort === "observed_at_asc") return "ASC";
  throw errors.unsupportedSort(sort);
}

/** Runs database work, turning an unreachable catalog into the 503 of the catalogue. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CatalogUnavailable) throw errors.unavailable(error.reason, error);
    throw error;
  }
}

/** An unavailable catalog is logged by its source once per change of state, not by every check that meets it. */
function reportedBySource(error: unknown): boolean {
  return error instanceof CatalogUnavailable || (error instanceof AppError && error.reported);
}

export class Catalog {
  private view: CatalogView | undefined;
  private loading: Promise<CatalogView> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: CatalogSource,
    private readonly log?: Pick<Logger, "info" | "warn">,
  ) {}

  /** Loads the first view and re-checks the database every `intervalMs` for changes. */
  async start(intervalMs: number): Promise<void> {
    await this.current().catch((error) => {
      if (!reportedBySource(error)) this.log?.warn({ err: error }, "catalog not loaded yet; will retry");
    });
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Rebuilds the view when the database reports a change. Failures keep the last good view. */
  async refresh(): Promise<void> {
    try {
      const token = await this.source.changeToken();
      if (token !== this.view?.token) await this.reload(token);
    } catch (error) {
      if (!reportedBySource(error)) this.log?.warn({ err: error }, "catalog refresh failed; serving the last loaded data");
    }
  }

  private reload(token?: string): Promise<CatalogView> {
    this.loading ??= (async () => {
      try {
        const started = Date.now();
        const view = await loadView(this.source, token ?? (await this.source.changeToken()));
        this.view = view;
        this.log?.info({ products: view.index.productCount, ms: Date.now() - started }, "catalog loaded");
        return view;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private current(): Promise<CatalogView> {
    return this.view ? Promise.resolve(this.view) : guarded(() => this.reload());
  }

  async health(): Promise<{ status: "ok" }> {
    await guarded(() => q.ping(this.source));
    return { status: "ok" };
  }

  async listProducts(filter: ListingFilter, sort: string, paging: Paging) {
    if (!(SORTS as readonly string[]).includes(sort)) throw errors.unsupportedSort(sort);
    const view = await this.current();
    const all = view.index.query(normaliseFilter(filter), sort as ProductSort);
    const selected = page(all, paging);
    return { ...selected, items: await this.productItems(view, selected.items) };
  }

  async getProduct(id: string) {
    const view = await this.current();
    const number = view.index.productNumber(id);
    const summary = number === undefined ? undefined : view.index.summarise(number);
    if (!summary) throw errors.productNotFound();
    const [item] = await this.productItems(view, [summary]);
    return item;
  }

  private async productItems(view: CatalogView, summaries: ProductSummary[]) {
    const listings = view.index.listings;
    const rowIds = summaries.map((s) => listings[s.rep]?.rowId);
    const imageRows = await guarded(() => q.images(this.source, view.facts, rowIds, true));
    const imageOf = new Map(imageRows.map((r) => [String(r.product_id), String(r.value ?? "").trim() || null]));
    return summaries.map((s) => {
      const rep = listings[s.rep];
      return {
        canonical_product_id: view.index.productIds[s.product] ?? null,
        title: rep?.title ?? null,
        brand: rep?.brand ?? null,
        price_from: s.priceFrom,
        price_unit: rep?.priceUnit ?? null,
        sources_count: s.sourcesCount,
        observed_at_latest: s.observedAtLatest === null ? null : formatInstant(s.observedAtLatest),
        image_url: imageOf.get(String(rep?.rowId)) ?? null,
        parsers: s.parsers,
      };
    });
  }

  /** A product id that cannot exist in this schema (a non-UUID on a uuid column) is simply unknown. */
  private impossibleId(view: CatalogView, id: string): boolean {
    return view.uuidIds && !UUID.test(id);
  }

  private async requireProduct(view: CatalogView, id: string): Promise<void> {
    if (view.index.productNumber(id) !== undefined) return;
    const exists = (await q.listingExists(this.source, id)) || (await q.snapshotExists(this.source, view.facts, id));
    if (!exists) throw errors.productNotFound();
  }

  async listSources(id: string, sort: string, paging: Paging) {
    const dir = direction(sort);
    const view = await this.current();
    if (this.impossibleId(view, id)) throw errors.productNotFound();
    return guarded(async () => {
      const { rows, total } = await q.sourcesPage(this.source, view.facts, id, dir, paging);
      if (total === 0) await this.requireProduct(view, id);
      const imageRows = await q.images(
        this.source,
        view.facts,
        rows.map((r) => r.id),
        false,
      );
      const imagesOf = new Map<string, string[]>();
      for (const r of imageRows) {
        const url = String(r.value ?? "").trim();
        if (!url) continue;
        const key = String(r.product_id);
        imagesOf.set(key, [...(imagesOf.get(key) ?? []), url]);
      }
      return { items: rows.map((r) => sourceItem(r, imagesOf.get(String(r.id)) ?? [])), meta: { ...paging, total } };
    });
  }

  async listSnapshots(
    id: string,
    filter: { parserName?: string | undefined; sourceId?: string | undefined },
    sort: string,
    paging: Paging,
  ) {
    const dir = direction(sort);
    const view = await this.current();
    if (this.impossibleId(view, id)) throw errors.productNotFound();
    return guarded(async () => {
      const parserName = filter.parserName === "" ? undefined : filter.parserName;
      const sourceId = filter.sourceId === "" ? undefined : filter.sourceId;
      const { rows, total } = await q.snapshotsPage(this.source, view.facts, { id, parserName, sourceId }, dir, paging);
      if (total === 0) await this.requireProduct(view, id);
      return { items: rows.map(snapshotItem), meta: { ...paging, total } };
    });
  }

  async countProducts(storeValues: string[], regionValues: string[]) {
    const [stores, regions] = [tokens(storeValues), tokens(regionValues)];
    const view = await this.current();
    return {
      products_count: view.index.countProducts(stores, regions),
      stores: stores.length > 0 ? stores : null,
      regions: regions.length > 0 ? regions : null,
    };
  }

  async commonCount(scopeValue: string | undefined, storeValues: string[], regionValues: string[]) {
    const scope = fold((scopeValue ?? "").trim());
    if (scope !== "stores" && scope !== "regions") throw errors.invalidScope();
    const [stores, regions] = [tokens(storeValues), tokens(regionValues)];
    const view = await this.current();
    const result = scope === "stores" ? view.index.commonAcrossStores(stores, regions) : view.index.commonAcrossRegions(stores, regions);
    return {
      scope,
      common_products_count: result.count,
      required_stores: scope === "stores" ? result.required : null,
      required_regions: scope === "regions" ? result.required : null,
      stores: stores.length > 0 ? stores : null,
      regions: regions.length > 0 ? regions : null,
    };
  }

  async listCategories(filter: { parserName?: string; depth?: number; parentSourceUid?: string; q?: string }, paging: Paging) {
    const view = await this.current();
    const keep = entryFilter(filter.q, [
      ["parser_name", filter.parserName || undefined],
      ["parent_source_uid", filter.parentSourceUid || undefined],
    ]);
    return page(
      view.categories.filter((e) => keep(e) && (filter.depth === undefined || e.item.depth === filter.depth)).map((e) => e.item),
      paging,
    );
  }

  async getCategory(id: number) {
    const item = (await this.current()).categoryById.get(id);
    if (!item) throw errors.categoryNotFound();
    return item;
  }

  async listSettlements(filter: { country?: string; region?: string; q?: string }, paging: Paging) {
    const view = await this.current();
    const keep = entryFilter(filter.q, [
      ["country", filter.country || undefined],
      ["region", filter.region || undefined],
    ]);
    return page(
      view.settlements.filter(keep).map((e) => e.item),
      paging,
    );
  }

  async getSettlement(id: number) {
    const item = (await this.current()).settlementById.get(id);
    if (!item) throw errors.settlementNotFound();
    return item;
  }

  async syncCursors(parserName: string | undefined) {
    const view = await this.current();
    const key = parserName === undefined || parserName.trim() === "" ? undefined : fold(parserName.trim());
    const rows = await guarded(() => q.cursors(this.source, view.facts, key));
    const items = rows
      .map((r) => cursorItem(r, q.CURSOR_PREFIX))
      .sort((a, b) => (a.parser_name < b.parser_name ? -1 : a.parser_name > b.parser_name ? 1 : 0));
    return { items };
  }

  /** GET /products/{id}/dynamics, validated in the original service's order. */
  async dynamics(params: SeriesParams) {
    const from = requestInstant(params.date_from);
    const to = requestInstant(params.date_to);
    if (from.instant > to.instant) throw errors.dateOrder();
    if (!(FIELDS as readonly string[]).includes(params.field)) throw errors.unsupportedField(params.field);
    const seconds = INTERVALS[params.interval as IntervalName];
    if (seconds === undefined || !Object.hasOwn(INTERVALS, params.interval)) throw errors.unsupportedInterval(params.interval);
    const step = seconds * MICROS_PER_SECOND;
    const points = pointCount(from.instant, to.instant, step);
    if (points > MAX_POINTS) throw errors.rangeTooLarge();
    if (points <= 0) throw errors.invalidRange();
    const view = await this.current();
    const triple = { id: params.canonical_product_id, parserName: params.parser_name, sourceId: params.source_id };
    if (this.impossibleId(view, triple.id)) throw errors.sourceNotFound();
    const rows = await guarded(() => q.seriesRows(this.source, view.facts, triple, params.field as DynamicsField));
    if (rows.length === 0) throw errors.sourceNotFound();
    const snapshots = rows.map(toSeriesSnapshot).filter((s): s is SeriesSnapshot => s !== null);
    const values = buildSeries(snapshots, from.instant, to.instant, step);
    return {
      dates: gridDates(from.instant, step, points),
      values,
      meta: {
        canonical_product_id: triple.id,
        parser_name: triple.parserName,
        source_id: triple.sourceId,
        field: params.field,
        interval: params.interval,
        date_from: formatInstant(from.instant),
        date_to: formatInstant(to.instant),
      },
    };
  }
}

/** Exact matches on raw stored columns plus the lower-cased substring search `q`. */
function entryFilter(qValue: string | undefined, exact: Array<[string, string | undefined]>) {
  const needle = qValue === undefined ? undefined : fold(qValue.trim());
  return (entry: Entry<unknown>): boolean =>
    exact.every(([column, value]) => value === undefined || entry.raw[column] === value) &&
    (needle === undefined || needle === "" || entry.searchKeys.some((key) => key.includes(needle)));
}
