/** GET /categories[/{id}] and GET /settlements[/{id}]. */
import { describe, expect, it } from "vitest";
import { type Backend, backends, category, insert, openFixtureCatalog, settlement, url, useCatalog } from "./support/fixture.js";

function extraRows(backend: Backend): string {
  return [
    insert(backend, "catalog_categories", [
      category({
        id: 2,
        category_key: "fixprice:cat-kefir",
        parser_name: "fixprice",
        source_uid: "cat-kefir",
        parent_source_uid: "cat-milk",
        title: "Кефир",
        alias: "kefir-drinks",
        depth: 2,
        sort_order: 2,
        updated_at: "2026-02-03T00:00:00+00:00",
      }),
      category({
        id: 3,
        category_key: "chizhik:cat-bread",
        parser_name: "chizhik",
        source_uid: "cat-bread",
        title: "Bread",
        title_normalized: "bread",
        alias: "bakery",
        depth: 1,
        sort_order: 1,
      }),
    ]),
    insert(backend, "catalog_settlements", [
      settlement({
        id: 2,
        geo_key: "rus:spb",
        country: "RUS",
        country_normalized: "rus",
        region: "Saint Petersburg",
        region_normalized: "saint petersburg",
        name: "Saint Petersburg",
        name_normalized: "saint petersburg",
        settlement_type: "city",
        alias: "Питер",
        latitude: 59.94,
        longitude: 30.31,
        updated_at: "2026-02-01T00:00:00+00:00",
      }),
      settlement({ id: 3, geo_key: "blr:minsk", country: "BLR", region: "Minsk Region", name: "Minsk" }),
    ]),
  ].join("\n");
}

const category1 = {
  id: 1,
  category_key: "fixprice:cat-milk",
  parser_name: "fixprice",
  source_uid: "cat-milk",
  parent_source_uid: null,
  title: "Milk",
  title_normalized: "milk",
  alias: null,
  depth: 1,
  sort_order: 1,
  first_seen_at: "2026-01-01T00:00:00Z",
  last_seen_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

const settlement1 = {
  id: 1,
  geo_key: "rus:moscow",
  country: "RUS",
  country_normalized: "rus",
  region: "Moscow",
  region_normalized: "moscow",
  name: "Moscow",
  name_normalized: "moscow",
  settlement_type: "city",
  alias: null,
  latitude: 55.75,
  longitude: 37.62,
  first_seen_at: "2026-01-01T00:00:00Z",
  last_seen_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

const idsOf = (items: readonly { id: number }[]): number[] => items.map((i) => i.id);

describe.each(backends)("categories and settlements [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend, extraRows));
  const ids = async (path: string, params: Record<string, string | number> = {}): Promise<number[]> => {
    const res = await catalog.get(url(path, params));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.total).toBe(res.body.items.length);
    return idsOf(res.body.items);
  };

  describe("GET /categories", () => {
    it("lists categories (original test) in updated_at desc, id asc order with full items", async () => {
      const res = await catalog.get("/categories");
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ limit: 20, offset: 0, total: 3 });
      expect(idsOf(res.body.items)).toEqual([2, 1, 3]);
      expect(res.body.items[1]).toEqual(category1);
      expect(Object.keys(res.body.items[0]).sort()).toEqual(Object.keys(category1).sort());
      expect(res.body.items[0]).toMatchObject({ title: "Кефир", title_normalized: null, parent_source_uid: "cat-milk", depth: 2 });
    });

    it("pages", async () => {
      const res = await catalog.get("/categories?limit=1&offset=1");
      expect(idsOf(res.body.items)).toEqual([1]);
      expect(res.body.meta).toEqual({ limit: 1, offset: 1, total: 3 });
      expect((await catalog.get("/categories?offset=3")).body).toEqual({ items: [], meta: { limit: 20, offset: 3, total: 3 } });
    });

    it.each([
      [{ parser_name: "fixprice" }, [2, 1]],
      [{ parser_name: "FIXPRICE" }, []],
      [{ parser_name: "" }, [2, 1, 3]],
      [{ depth: 2 }, [2]],
      [{ depth: 1 }, [1, 3]],
      [{ parent_source_uid: "cat-milk" }, [2]],
      [{ parent_source_uid: "" }, [2, 1, 3]],
      [{ q: "bakery" }, [3]],
      [{ q: "  BREAD " }, [3]],
      [{ q: "cat-milk" }, [1]],
      [{ q: "milk" }, [1]],
      [{ q: "КЕФ" }, [2]],
      [{ q: "кеф" }, [2]],
      [{ q: "zzz" }, []],
      [{ parser_name: "fixprice", depth: 1 }, [1]],
    ])("%j -> %j", async (params, expected) => {
      expect(await ids("/categories", params)).toEqual(expected);
    });

    it.each(["limit=0", "limit=101", "offset=-1", "depth=deep"])("%s -> 422", async (query) => {
      const res = await catalog.get(`/categories?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["query", query.split("=")[0]]);
    });
  });

  describe("GET /categories/{id}", () => {
    it("returns one category", async () => {
      const res = await catalog.get("/categories/1");
      expect(res.status).toBe(200);
      expect(res.body).toEqual(category1);
    });

    it.each(["999", "0", "-1"])("/categories/%s -> 404 category_not_found", async (id) => {
      const res = await catalog.get(`/categories/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "category_not_found" });
    });

    it.each(["abc", "1.5"])("/categories/%s -> 422", async (id) => {
      const res = await catalog.get(`/categories/${id}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "int_parsing", loc: ["path", "category_id"], input: id })]);
    });
  });

  describe("GET /settlements", () => {
    it("lists settlements (original test) in updated_at desc, id asc order with full items", async () => {
      const res = await catalog.get("/settlements");
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ limit: 20, offset: 0, total: 3 });
      expect(idsOf(res.body.items)).toEqual([2, 1, 3]);
      expect(res.body.items[1]).toEqual(settlement1);
      expect(res.body.items[2]).toMatchObject({ id: 3, region_normalized: null, alias: null, latitude: null, country: "BLR" });
    });

    it.each([
      [{ country: "RUS" }, [2, 1]],
      [{ country: "rus" }, []],
      [{ region: "Moscow" }, [1]],
      // raw region, case-sensitive; not region_normalized
      [{ region: "moscow" }, []],
      [{ q: "minsk" }, [3]],
      [{ q: "blr" }, [3]],
      [{ q: "region" }, [3]],
      [{ q: " Saint " }, [2]],
      [{ q: "ПИТЕР" }, [2]],
      [{ q: "питер" }, [2]],
      [{ country: "RUS", q: "mos" }, [1]],
    ])("%j -> %j", async (params, expected) => {
      expect(await ids("/settlements", params)).toEqual(expected);
    });

    it("pages and validates", async () => {
      const res = await catalog.get("/settlements?limit=2&offset=1");
      expect(idsOf(res.body.items)).toEqual([1, 3]);
      expect(res.body.meta).toEqual({ limit: 2, offset: 1, total: 3 });
      for (const q of ["limit=0", "limit=101", "offset=-1", "limit=ten"]) {
        expect((await catalog.get(`/settlements?${q}`)).status, q).toBe(422);
      }
    });
  });

  describe("GET /settlements/{id}", () => {
    it("returns one settlement", async () => {
      const res = await catalog.get("/settlements/1");
      expect(res.status).toBe(200);
      expect(res.body).toEqual(settlement1);
    });

    it("404 settlement_not_found, 422 for a non-integer id", async () => {
      const missing = await catalog.get("/settlements/42");
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: "settlement_not_found" });
      const bad = await catalog.get("/settlements/moscow");
      expect(bad.status).toBe(422);
      expect(bad.body.detail).toEqual([expect.objectContaining({ type: "int_parsing", loc: ["path", "settlement_id"] })]);
    });
  });
});
