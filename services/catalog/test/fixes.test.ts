/**
 * The deliberate fixes of the original service's weaknesses that our service makes: naive stored
 * timestamps are UTC, Unicode case-insensitive matching, literal `%`/`_` in q, sorted parsers, huge
 * integers rejected with 422 (never 500). Plus the count routes' region fallback.
 */
import { describe, expect, it } from "vitest";
import { ids } from "./support/expected.js";
import {
  type Backend,
  backends,
  insert,
  naive,
  openFixtureCatalog,
  product,
  settlement,
  snapshot,
  url,
  useCatalog,
} from "./support/fixture.js";

function extraRows(backend: Backend): string {
  const at = (time: string) => `2026-02-06T${time}+00:00`;
  return [
    insert(backend, "catalog_settlements", [
      settlement({ id: 2, geo_key: "rus:moscow-ru", country: "RUS", region: "Москва", region_normalized: "москва", name: "Москва" }),
      settlement({ id: 3, geo_key: "rus:kazan", country: "RUS", region: "Kazan Region", name: "Kazan" }),
      settlement({
        id: 4,
        geo_key: "rus:tatarstan",
        country: "RUS",
        region: "Tatarstan",
        region_normalized: "tatarstan-rep",
        name: "Elabuga",
      }),
    ]),
    insert(backend, "catalog_products", [
      product({
        id: 10,
        canonical_product_id: "prod-ru",
        parser_name: "Пятёрочка",
        source_id: "p5-1",
        title_original: "Молоко Простоквашино",
        title_normalized_no_stopwords: "moloko prostokvashino",
        brand: "Простоквашино",
        price: 80,
        settlement_id: 2,
        observed_at: at("09:00:00"),
      }),
      product({
        id: 11,
        canonical_product_id: "prod-pct",
        parser_name: "fixprice",
        source_id: "fp-pct",
        title_original: "Кефир 2,5%",
        settlement_id: 1,
        observed_at: at("10:00:00"),
      }),
      product({
        id: 12,
        canonical_product_id: "prod-us",
        parser_name: "fixprice",
        source_id: "fp-us",
        title_original: "snack_box",
        settlement_id: 1,
        observed_at: at("11:00:00"),
      }),
      product({
        id: 13,
        canonical_product_id: "prod-naive",
        parser_name: "fixprice",
        source_id: "fp-naive",
        settlement_id: 3,
        observed_at: naive("2026-02-05 09:00:00.250000"),
        created_at: naive("2026-02-05 09:00:00.250000"),
        updated_at: naive("2026-02-05 09:00:00.250000"),
      }),
      product({
        id: 14,
        canonical_product_id: "prod-naive-t",
        parser_name: "fixprice",
        source_id: "fp-naive-t",
        settlement_id: 4,
        observed_at: naive("2026-02-06T08:00:00"),
        created_at: naive("2026-02-06T08:00:00"),
        updated_at: naive("2026-02-06T08:00:00"),
      }),
      // A product whose id is literally "count": /products/count stays the count route.
      product({
        id: 18,
        canonical_product_id: "count",
        parser_name: "fixprice",
        source_id: "fp-count",
        observed_at: "2026-01-15T00:00:00+00:00",
      }),
      product({ id: 15, canonical_product_id: "prod-multi", parser_name: "zeta", source_id: "z-1" }),
      product({ id: 16, canonical_product_id: "prod-multi", parser_name: "beta", source_id: "b-1" }),
      product({ id: 17, canonical_product_id: "prod-multi", parser_name: "alpha", source_id: "a-1" }),
    ]),
    insert(backend, "catalog_product_snapshots", [
      snapshot({
        id: 901,
        canonical_product_id: "count",
        parser_name: "fixprice",
        source_id: "fp-count",
        observed_at: "2026-01-15T00:00:00+00:00",
        price: 7,
      }),
    ]),
  ].join("\n");
}

describe.each(backends)("deliberate fixes [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend, extraRows));
  const productIds = async (params: Record<string, string>): Promise<string[]> => {
    const res = await catalog.get(url("/products", { limit: "100", ...params }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return ids(res.body.items);
  };

  describe("stored timestamps without offset are read as UTC (9.2)", () => {
    it("/products answers 200 and writes them with Z", async () => {
      const res = await catalog.get("/products?limit=100");
      expect(res.status).toBe(200);
      const byId = new Map(res.body.items.map((i: { canonical_product_id: string }) => [i.canonical_product_id, i]));
      expect(byId.get("prod-naive")).toMatchObject({ observed_at_latest: "2026-02-05T09:00:00.250000Z" });
      expect(byId.get("prod-naive-t")).toMatchObject({ observed_at_latest: "2026-02-06T08:00:00Z" });
    });

    it("/products/{id} and /sources answer 200 with Z", async () => {
      const one = await catalog.get("/products/prod-naive");
      expect(one.status).toBe(200);
      expect(one.body.observed_at_latest).toBe("2026-02-05T09:00:00.250000Z");
      const sources = await catalog.get("/products/prod-naive-t/sources");
      expect(sources.status).toBe(200);
      expect(sources.body.items[0].observed_at).toBe("2026-02-06T08:00:00Z");
    });

    it("sorts by instant, mixing naive and offset values", async () => {
      const expected = ["prod-us", "prod-pct", "prod-ru", "prod-naive-t", "prod-naive", "prod-2", "prod-1", "prod-multi", "count"];
      expect(await productIds({})).toEqual(expected);
      expect(await productIds({ sort: "observed_at_asc" })).toEqual([...expected].reverse());
    });
  });

  describe("Unicode case-insensitive matching (9.4)", () => {
    it.each(["молоко", "МОЛОКО", "Молоко", " простоквашино ", "ПРОСТОКВАШИНО"])("q=%j matches the Cyrillic title or brand", async (q) => {
      expect(await productIds({ q })).toEqual(["prod-ru"]);
    });

    it.each(["простоквашино", "ПРОСТОКВАШИНО", "  Простоквашино "])("brand=%j", async (brand) => {
      expect(await productIds({ brand })).toEqual(["prod-ru"]);
    });

    it("/products/count matches Cyrillic store and region tokens case-insensitively", async () => {
      expect((await catalog.get(url("/products/count", { store: "ПЯТЁРОЧКА" }))).body).toEqual({
        products_count: 1,
        stores: ["пятёрочка"],
        regions: null,
      });
      expect((await catalog.get(url("/products/count", { region: "МОСКВА" }))).body).toEqual({
        products_count: 1,
        stores: null,
        regions: ["москва"],
      });
      expect((await catalog.get(url("/products/count", { store: "пятёрочка", region: "Москва" }))).body.products_count).toBe(1);
    });

    it("/products/common/count matches Cyrillic tokens", async () => {
      const stores = await catalog.get(url("/products/common/count", { scope: "stores", store: ["Пятёрочка", "FIXPRICE"] }));
      expect(stores.body).toMatchObject({ stores: ["пятёрочка", "fixprice"], required_stores: 2, common_products_count: 0 });
      const regions = await catalog.get(url("/products/common/count", { scope: "regions", region: "МОСКВА" }));
      expect(regions.body).toMatchObject({ regions: ["москва"], required_regions: 1, common_products_count: 1 });
    });
  });

  describe("% and _ in q are literal (9.9)", () => {
    it.each([
      ["%", ["prod-pct"]],
      ["2,5%", ["prod-pct"]],
      ["_", ["prod-us"]],
      ["k_fir", []],
      ["%milk", []],
      ["milk%", []],
    ])("q=%j", async (q, expected) => {
      expect(await productIds({ q })).toEqual(expected);
    });
  });

  it("sorts parsers ascending (9.10)", async () => {
    const res = await catalog.get("/products/prod-multi");
    expect(res.status).toBe(200);
    expect(res.body.parsers).toEqual(["alpha", "beta", "zeta"]);
    expect(res.body.sources_count).toBe(3);
  });

  describe("huge integers -> 422, never 500 (9.14)", () => {
    const huge = "99999999999999999999999";
    it.each([
      [`/categories/${huge}`, "path", "category_id"],
      [`/settlements/${huge}`, "path", "settlement_id"],
      [`/products?offset=${huge}`, "query", "offset"],
      [`/products?category_id=${huge}`, "query", "category_id"],
      [`/products?settlement_id=-${huge}`, "query", "settlement_id"],
      [`/categories?depth=${huge}`, "query", "depth"],
      [`/products/prod-1/sources?offset=${huge}`, "query", "offset"],
      [`/products/prod-1/snapshots?offset=${huge}`, "query", "offset"],
    ])("%s", async (path, where, name) => {
      const res = await catalog.get(path);
      expect(res.status).toBe(422);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(Array.isArray(res.body.detail)).toBe(true);
      expect(res.body.detail[0].loc).toEqual([where, name]);
      expect(typeof res.body.detail[0].type).toBe("string");
      expect(typeof res.body.detail[0].msg).toBe("string");
    });

    it("a huge limit is less_than_equal", async () => {
      const res = await catalog.get(`/products?limit=${huge}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "less_than_equal", loc: ["query", "limit"] })]);
    });

    it("integers beyond 32 bits but representable are ordinary values", async () => {
      expect((await catalog.get("/products?category_id=3000000000")).body.meta.total).toBe(0);
      expect((await catalog.get("/products?settlement_id=3000000000")).body.meta.total).toBe(0);
      expect((await catalog.get("/categories?depth=3000000000")).body.meta.total).toBe(0);
      expect((await catalog.get("/categories/3000000000")).status).toBe(404);
      expect((await catalog.get("/settlements/3000000000")).status).toBe(404);
      const past = await catalog.get("/products?offset=3000000000");
      expect(past.status).toBe(200);
      expect(past.body.items).toEqual([]);
    });
  });

  describe("count routes: region_normalized, else region, never both", () => {
    it.each([
      ["Kazan Region", 1],
      ["tatarstan-rep", 1],
      ["tatarstan", 0],
    ])("region=%j -> %i", async (region, count) => {
      expect((await catalog.get(url("/products/count", { region }))).body.products_count).toBe(count);
    });

    it("rows without a settlement drop out of region filtering", async () => {
      const res = await catalog.get(url("/products/common/count", { scope: "regions" }));
      // moscow, москва, kazan region, tatarstan-rep; prod-multi has no settlement
      expect(res.body).toMatchObject({ required_regions: 4, common_products_count: 0 });
    });
  });

  describe("route precedence (the original's route order)", () => {
    it("/products/count is the count route; the product 'count' is reachable through its sub-routes", async () => {
      const count = await catalog.get("/products/count");
      expect(count.status).toBe(200);
      expect(Object.keys(count.body).sort()).toEqual(["products_count", "regions", "stores"]);
      const sources = await catalog.get("/products/count/sources");
      expect(sources.status).toBe(200);
      expect(sources.body.items.map((i: { source_id: string }) => i.source_id)).toEqual(["fp-count"]);
      const snapshots = await catalog.get("/products/count/snapshots");
      expect(snapshots.body.items.map((i: { id: number }) => i.id)).toEqual([901]);
      const dynamics = await catalog.get(
        url("/products/count/dynamics", {
          parser_name: "fixprice",
          source_id: "fp-count",
          field: "price",
          interval: "1d",
          date_from: "2026-01-15T00:00:00Z",
          date_to: "2026-01-15T00:00:00Z",
        }),
      );
      expect(dynamics.status).toBe(200);
      expect(dynamics.body.values).toEqual([7]);
    });
  });
});
