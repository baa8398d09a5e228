/**
 * GET /products filters on the original fixture. Effective prices: row 1 (prod-1/fixprice) 90,
 * row 2 (prod-1/chizhik) 110, row 3 (prod-2/fixprice) 115.
 * Booleans: row 1 promo, hit=false, adult=false; row 2 is_new, hit/adult NULL; row 3 hit, adult=false.
 */
import { describe, expect, it } from "vitest";
import { ids } from "./support/expected.js";
import { backends, type Reply, url, useCatalog } from "./support/fixture.js";

describe.each(backends)("GET /products filters [%s]", (backend) => {
  const catalog = useCatalog(backend);
  const list = (params: Record<string, string | number>): Promise<Reply> => catalog.get(url("/products", params));

  /** [canonical id, sources_count] pairs of the page, plus the total. */
  async function summary(params: Record<string, string | number>): Promise<{ total: number; items: [string, number][] }> {
    const res = await list(params);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.total).toBe(res.body.items.length);
    return {
      total: res.body.meta.total,
      items: res.body.items.map((i: { canonical_product_id: string; sources_count: number }) => [i.canonical_product_id, i.sources_count]),
    };
  }

  describe("q", () => {
    it.each([
      ["kefir", [["prod-2", 1]]],
      ["KEFIR", [["prod-2", 1]]],
      ["  kefir  ", [["prod-2", 1]]],
      ["prosto", [["prod-1", 2]]],
      // title_original of row 1 only
      ["1l", [["prod-1", 1]]],
      // title_normalized_no_stopwords only
      ["fermented", [["prod-2", 1]]],
      // brand only
      ["village", [["prod-2", 1]]],
      ["milk", [["prod-1", 2]]],
      ["nothing-like-this", []],
    ])("q=%j", async (q, expected) => {
      expect((await summary({ q })).items).toEqual(expected);
    });

    it("an empty or whitespace-only q filters nothing", async () => {
      expect((await summary({ q: "" })).total).toBe(2);
      expect((await summary({ q: "   " })).total).toBe(2);
    });

    it("aggregates and the representative come from the matching rows only", async () => {
      const res = await list({ q: "1l" });
      expect(res.body.items[0]).toMatchObject({
        canonical_product_id: "prod-1",
        title: "Milk Prostokvashino 1L",
        brand: "Prostokvashino",
        price_from: 90,
        price_unit: "RUB",
        sources_count: 1,
        observed_at_latest: "2026-02-03T09:00:00Z",
        parsers: ["fixprice"],
      });
    });
  });

  describe("parser_name", () => {
    it("matches exactly", async () => {
      const res = await list({ parser_name: "chizhik" });
      expect(res.body.items).toEqual([
        expect.objectContaining({ canonical_product_id: "prod-1", sources_count: 1, price_from: 110, parsers: ["chizhik"] }),
      ]);
      expect((await summary({ parser_name: "fixprice" })).items).toEqual([
        ["prod-2", 1],
        ["prod-1", 1],
      ]);
    });

    it("is case-sensitive and an empty value is ignored", async () => {
      expect((await summary({ parser_name: "FIXPRICE" })).total).toBe(0);
      expect((await summary({ parser_name: "" })).total).toBe(2);
    });
  });

  describe("category_id and settlement_id", () => {
    it.each([
      [{ category_id: 1 }, 2],
      [{ category_id: 2 }, 0],
      [{ settlement_id: 1 }, 2],
      [{ settlement_id: 999 }, 0],
      [{ category_id: 1, settlement_id: 1, parser_name: "chizhik" }, 1],
    ])("%j -> total %i", async (params, total) => {
      expect((await summary(params)).total).toBe(total);
    });

    it.each(["category_id", "settlement_id"])("%s must be an integer (422)", async (name) => {
      const res = await list({ [name]: "one" });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "int_parsing", loc: ["query", name] })]);
    });
  });

  describe("brand", () => {
    it.each([
      ["Village House", [["prod-2", 1]]],
      ["  village house ", [["prod-2", 1]]],
      ["PROSTOKVASHINO", [["prod-1", 1]]],
      // equality, not substring
      ["village", []],
    ])("brand=%j", async (brand, expected) => {
      expect((await summary({ brand })).items).toEqual(expected);
    });

    it("an empty brand is ignored; a whitespace-only brand matches rows without a brand", async () => {
      expect((await summary({ brand: "" })).total).toBe(2);
      expect((await summary({ brand: "  " })).items).toEqual([["prod-1", 1]]);
    });
  });

  describe("booleans", () => {
    it.each([
      ["promo", "true", [["prod-1", 1]]],
      [
        "promo",
        "false",
        [
          ["prod-2", 1],
          ["prod-1", 1],
        ],
      ],
      ["is_new", "true", [["prod-1", 1]]],
      [
        "is_new",
        "false",
        [
          ["prod-2", 1],
          ["prod-1", 1],
        ],
      ],
      ["hit", "true", [["prod-2", 1]]],
      // row 2 has hit NULL: it matches neither true nor false
      ["hit", "false", [["prod-1", 1]]],
      ["adult", "true", []],
      [
        "adult",
        "false",
        [
          ["prod-2", 1],
          ["prod-1", 1],
        ],
      ],
    ])("%s=%s", async (name, value, expected) => {
      expect((await summary({ [name]: value })).items).toEqual(expected);
    });

    it.each(["true", "True", "TRUE", "1", "yes", "YES", "on", "t", "y"])("promo=%s parses as true", async (value) => {
      expect((await summary({ promo: value })).items).toEqual([["prod-1", 1]]);
    });

    it.each(["false", "False", "0", "no", "off", "OFF", "f", "n"])("promo=%s parses as false", async (value) => {
      expect((await summary({ promo: value })).total).toBe(2);
    });

    it.each(["promo", "is_new", "hit", "adult"])("%s=maybe -> 422 bool_parsing", async (name) => {
      const res = await list({ [name]: "maybe" });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "bool_parsing", loc: ["query", name], input: "maybe" })]);
    });
  });

  describe("price_min and price_max (effective price: discount, else loyal, else price)", () => {
    it.each([
      [
        { price_min: 90 },
        [
          ["prod-2", 1],
          ["prod-1", 2],
        ],
      ],
      [
        { price_min: 100 },
        [
          ["prod-2", 1],
          ["prod-1", 1],
        ],
      ],
      [{ price_min: 111 }, [["prod-2", 1]]],
      [{ price_min: 115.5 }, []],
      [{ price_max: 100 }, [["prod-1", 1]]],
      [{ price_max: 89.99 }, []],
      [
        { price_max: 115 },
        [
          ["prod-2", 1],
          ["prod-1", 2],
        ],
      ],
      [{ price_min: 91, price_max: 112 }, [["prod-1", 1]]],
      [
        { price_min: "1e2" },
        [
          ["prod-2", 1],
          ["prod-1", 1],
        ],
      ],
    ])("%j", async (params, expected) => {
      expect((await summary(params)).items).toEqual(expected);
    });

    it("price_from is the minimum over the rows that pass the filter", async () => {
      const res = await list({ price_min: 100, sort: "price_asc" });
      expect(res.body.items.map((i: { price_from: number }) => i.price_from)).toEqual([110, 115]);
    });

    it.each(["price_min", "price_max"])("%s=cheap -> 422 float_parsing", async (name) => {
      const res = await list({ [name]: "cheap" });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "float_parsing", loc: ["query", name], input: "cheap" })]);
    });
  });

  it("combines filters with AND", async () => {
    expect((await summary({ promo: "false", parser_name: "fixprice" })).items).toEqual([["prod-2", 1]]);
    expect((await summary({ q: "milk", price_max: 95 })).items).toEqual([["prod-1", 1]]);
    expect(ids((await list({ q: "milk", hit: "true" })).body.items)).toEqual([]);
  });
});
