/** GET /products on the original fixture: shape, defaults, pagination, sorts. */
import { describe, expect, it } from "vitest";
import { ids, prod1Item, prod2Item, productItemKeys } from "./support/expected.js";
import { backends, useCatalog } from "./support/fixture.js";

describe.each(backends)("GET /products [%s]", (backend) => {
  const catalog = useCatalog(backend);

  it("lists products with parsers (original test)", async () => {
    const res = await catalog.get("/products");
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBeGreaterThanOrEqual(2);
    for (const item of res.body.items) expect(Array.isArray(item.parsers)).toBe(true);
  });

  it("puts prod-1 before prod-2 with observed_at_asc (original test)", async () => {
    const res = await catalog.get("/products?sort=observed_at_asc");
    expect(res.status).toBe(200);
    const order = ids(res.body.items);
    expect(order.indexOf("prod-1")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("prod-1")).toBeLessThan(order.indexOf("prod-2"));
  });

  it("answers the default page: newest first, meta with defaults, exact items", async () => {
    const res = await catalog.get("/products");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(["items", "meta"]);
    expect(res.body.meta).toEqual({ limit: 20, offset: 0, total: 2 });
    expect(res.body.items).toEqual([prod2Item, prod1Item]);
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(productItemKeys);
  });

  it("does not list snapshot-only products (prod-interval)", async () => {
    const res = await catalog.get("/products?limit=100");
    expect(ids(res.body.items)).not.toContain("prod-interval");
  });

  it("takes title, brand, price_unit and image from the representative (latest observed) row", async () => {
    const res = await catalog.get("/products?sort=observed_at_asc");
    const item = res.body.items[0];
    expect(item.canonical_product_id).toBe("prod-1");
    // row 2 (chizhik, observed 02-04) is newer than row 1 (fixprice, 02-03)
    expect(item.title).toBe("Prostokvashino milk 1 l");
    expect(item.brand).toBeNull();
    expect(item.price_unit).toBe("RUB/pc");
    expect(item.image_url).toBe(prod1Item.image_url);
    // aggregates span both rows
    expect(item.sources_count).toBe(2);
    expect(item.price_from).toBe(90);
    expect(item.observed_at_latest).toBe("2026-02-04T09:00:00Z");
  });

  it("sorts parsers ascending (deliberate fix)", async () => {
    const res = await catalog.get("/products/prod-1");
    expect(res.body.parsers).toEqual(["chizhik", "fixprice"]);
  });

  describe("pagination", () => {
    it("limit=1 gives the first item and keeps the total", async () => {
      const res = await catalog.get("/products?limit=1");
      expect(res.status).toBe(200);
      expect(ids(res.body.items)).toEqual(["prod-2"]);
      expect(res.body.meta).toEqual({ limit: 1, offset: 0, total: 2 });
    });

    it("offset=1 gives the second item", async () => {
      const res = await catalog.get("/products?limit=1&offset=1");
      expect(ids(res.body.items)).toEqual(["prod-1"]);
      expect(res.body.meta).toEqual({ limit: 1, offset: 1, total: 2 });
    });

    it("an offset past the end answers 200 with no items", async () => {
      const res = await catalog.get("/products?offset=50");
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([]);
      expect(res.body.meta).toEqual({ limit: 20, offset: 50, total: 2 });
    });

    it("accepts the bounds limit=1 and limit=100 and offset=0", async () => {
      for (const q of ["limit=1", "limit=100", "offset=0", "limit=100&offset=0"]) {
        expect((await catalog.get(`/products?${q}`)).status, q).toBe(200);
      }
    });

    it.each([
      ["limit=0", "limit", "greater_than_equal"],
      ["limit=101", "limit", "less_than_equal"],
      ["limit=-1", "limit", "greater_than_equal"],
      ["limit=abc", "limit", "int_parsing"],
      ["limit=2.5", "limit", "int_parsing"],
      ["offset=-1", "offset", "greater_than_equal"],
      ["offset=x", "offset", "int_parsing"],
    ])("%s -> 422", async (query, name, type) => {
      const res = await catalog.get(`/products?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type, loc: ["query", name] })]);
    });
  });

  describe("sort", () => {
    it.each([
      ["observed_at_desc", ["prod-2", "prod-1"]],
      ["observed_at_asc", ["prod-1", "prod-2"]],
      ["price_asc", ["prod-1", "prod-2"]],
      ["price_desc", ["prod-2", "prod-1"]],
      // rating of the representative row: prod-1 -> row 2 (4.1), prod-2 -> 4.0
      ["rating_desc", ["prod-1", "prod-2"]],
    ])("sort=%s", async (sort, expected) => {
      const res = await catalog.get(`/products?sort=${sort}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.items)).toEqual(expected);
      expect(res.body.meta.total).toBe(2);
    });

    it.each(["bogus", "PRICE_ASC", "rating_asc", "observed_at"])("unknown sort %s -> 400 unsupported sort", async (sort) => {
      const res = await catalog.get(`/products?sort=${sort}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: `unsupported sort: ${sort}` });
    });

    it("an unknown sort is rejected even when the filters match nothing", async () => {
      const res = await catalog.get("/products?parser_name=nobody&sort=worst");
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: "unsupported sort: worst" });
    });
  });

  it("ignores unknown query parameters", async () => {
    const res = await catalog.get("/products?color=red");
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBe(2);
  });
});
