/** GET /products/count and GET /products/common/count. */
import { describe, expect, it } from "vitest";
import { backends, openCatalog, url, useCatalog } from "./support/fixture.js";

type Params = Record<string, string | readonly string[]>;

describe.each(backends)("count routes [%s]", (backend) => {
  const catalog = useCatalog(backend);

  describe("GET /products/count", () => {
    const count = (params: Params = {}) => catalog.get(url("/products/count", params));

    it.each([
      [{}, 2],
      [{ store: "fixprice" }, 2],
      [{ store: "chizhik" }, 1],
      [{ region: "moscow" }, 2],
      [{ store: "chizhik", region: "moscow" }, 1],
      [{ region: "spb" }, 0],
    ])("%j -> %i (original test)", async (params, expected) => {
      const res = await count(params);
      expect(res.status).toBe(200);
      expect(res.body.products_count).toBe(expected);
    });

    it("echoes null token lists when none were given", async () => {
      expect((await count()).body).toEqual({ products_count: 2, stores: null, regions: null });
    });

    it("normalises tokens: trim, lower-case, drop empties, dedupe keeping first order", async () => {
      const res = await count({ store: [" FixPrice ", "chizhik", "", "FIXPRICE", "  "], region: ["Moscow", "moscow"] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ products_count: 2, stores: ["fixprice", "chizhik"], regions: ["moscow"] });
    });

    it("stores match case-insensitively and combine with OR", async () => {
      expect((await count({ store: "CHIZHIK" })).body).toEqual({ products_count: 1, stores: ["chizhik"], regions: null });
      expect((await count({ store: ["chizhik", "unknown"] })).body.products_count).toBe(1);
    });

    it("only empty tokens count as no filter", async () => {
      expect((await count({ store: ["", " "], region: "" })).body).toEqual({ products_count: 2, stores: null, regions: null });
    });

    it("a comma list is one token", async () => {
      expect((await count({ store: "fixprice,chizhik" })).body).toEqual({ products_count: 0, stores: ["fixprice,chizhik"], regions: null });
    });

    it("region matches the normalised region (region 'Moscow', region_normalized 'moscow')", async () => {
      expect((await count({ region: "MOSCOW" })).body).toEqual({ products_count: 2, stores: null, regions: ["moscow"] });
      expect((await count({ store: "unknown", region: "moscow" })).body.products_count).toBe(0);
    });
  });

  describe("GET /products/common/count", () => {
    const common = (params: Params) => catalog.get(url("/products/common/count", params));

    it("scope=stores over all stores -> required 2, count 1 (original test)", async () => {
      const res = await common({ scope: "stores" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        scope: "stores",
        common_products_count: 1,
        required_stores: 2,
        required_regions: null,
        stores: null,
        regions: null,
      });
    });

    it("explicit stores are echoed in request order (original test)", async () => {
      const res = await common({ scope: "stores", store: ["fixprice", "chizhik"] });
      expect(res.body).toMatchObject({ stores: ["fixprice", "chizhik"], required_stores: 2, common_products_count: 1 });
      const reversed = await common({ scope: "stores", store: ["Chizhik", " fixprice", "chizhik"] });
      expect(reversed.body).toMatchObject({ stores: ["chizhik", "fixprice"], required_stores: 2, common_products_count: 1 });
    });

    it("one store -> the number of that store's products (original test)", async () => {
      const res = await common({ scope: "stores", store: "fixprice" });
      expect(res.body).toMatchObject({ scope: "stores", required_stores: 1, common_products_count: 2, stores: ["fixprice"] });
    });

    it("a listed store without data makes the answer 0", async () => {
      const res = await common({ scope: "stores", store: ["fixprice", "unknown"] });
      expect(res.body).toMatchObject({ required_stores: 2, common_products_count: 0 });
    });

    it("scope=stores with a region filter", async () => {
      const moscow = await common({ scope: "stores", region: "Moscow" });
      expect(moscow.body).toEqual({
        scope: "stores",
        common_products_count: 1,
        required_stores: 2,
        required_regions: null,
        stores: null,
        regions: ["moscow"],
      });
      const spb = await common({ scope: "stores", region: "spb" });
      expect(spb.body).toMatchObject({ required_stores: 0, common_products_count: 0, regions: ["spb"] });
    });

    it("scope=regions over all regions -> required 1, count 2 (original test)", async () => {
      const res = await common({ scope: "regions" });
      expect(res.body).toEqual({
        scope: "regions",
        common_products_count: 2,
        required_stores: null,
        required_regions: 1,
        stores: null,
        regions: null,
      });
    });

    it("scope=regions with moscow and spb -> required 2, count 0 (original test)", async () => {
      const res = await common({ scope: "regions", region: ["moscow", "spb"] });
      expect(res.body).toMatchObject({ required_regions: 2, common_products_count: 0, regions: ["moscow", "spb"], required_stores: null });
    });

    it("scope=regions restricted to stores", async () => {
      const res = await common({ scope: "regions", store: "CHIZHIK" });
      expect(res.body).toEqual({
        scope: "regions",
        common_products_count: 1,
        required_stores: null,
        required_regions: 1,
        stores: ["chizhik"],
        regions: null,
      });
    });

    it("scope is trimmed and lower-cased", async () => {
      const res = await common({ scope: " Stores " });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe("stores");
    });

    it.each(["unknown", "all_stores", "two_stores", "", "store"])("scope=%j -> 400 (original test)", async (scope) => {
      const res = await common({ scope });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: "scope must be one of: stores, regions" });
    });

    it("a missing scope -> 400 (the declared default all_stores is rejected)", async () => {
      const res = await catalog.get("/products/common/count?store=fixprice");
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: "scope must be one of: stores, regions" });
    });
  });

  describe("on an empty catalog", () => {
    const empty = useCatalog(backend, () => openCatalog(backend));

    it("counts 0 with required 0", async () => {
      expect((await empty.get("/products/count")).body).toEqual({ products_count: 0, stores: null, regions: null });
      const stores = await empty.get("/products/common/count?scope=stores");
      expect(stores.status).toBe(200);
      expect(stores.body).toMatchObject({ common_products_count: 0, required_stores: 0 });
      const regions = await empty.get("/products/common/count?scope=regions");
      expect(regions.body).toMatchObject({ common_products_count: 0, required_regions: 0 });
    });
  });
});
