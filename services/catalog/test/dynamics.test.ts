/**
 * GET /products/{id}/dynamics on the original fixture: worked examples, date parsing,
 * validation order and the error catalogue, as in the original service.
 * Fixture: prod-1/fixprice/fp-1 snapshots 101 (02-01 10:00, price 100, available 5),
 * 102 (02-01 15:00, 90, 4), 103 (02-03 09:00, 80, 3); prod-1/chizhik/ch-1 104 (02-02 12:00, 120);
 * prod-interval/fixprice/fp-int 201 valid 02-10 10:00..12:00, price 77.
 */
import { describe, expect, it } from "vitest";
import { backends, url, useCatalog } from "./support/fixture.js";

const base = {
  parser_name: "fixprice",
  source_id: "fp-1",
  field: "price",
  date_from: "2026-02-01T00:00:00Z",
  date_to: "2026-02-03T23:59:59Z",
  interval: "1d",
};

type Params = Partial<Record<keyof typeof base, string>>;

/** `YYYY-MM-DDTHH:MM:SSZ` for a whole-second instant. */
const isoZ = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");

describe.each(backends)("GET /products/{id}/dynamics [%s]", (backend) => {
  const catalog = useCatalog(backend);
  const dynamics = (params: Params = {}, id = "prod-1") => catalog.get(url(`/products/${id}/dynamics`, { ...base, ...params }));

  async function values(params: Params, id?: string): Promise<(number | null)[]> {
    const res = await dynamics(params, id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.values;
  }

  async function expectError(params: Params, status: number, detail: string, id?: string): Promise<void> {
    const res = await dynamics(params, id);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ detail });
  }

  describe("worked examples (original tests)", () => {
    it("daily price over three days: later observation wins, empty day is null", async () => {
      const res = await dynamics();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        dates: ["2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", "2026-02-03T00:00:00Z"],
        values: [90, null, 80],
        meta: {
          canonical_product_id: "prod-1",
          parser_name: "fixprice",
          source_id: "fp-1",
          field: "price",
          interval: "1d",
          date_from: "2026-02-01T00:00:00Z",
          date_to: "2026-02-03T23:59:59Z",
        },
      });
    });

    it("one day -> one value", async () => {
      const res = await dynamics({ date_to: "2026-02-01T23:59:59Z" });
      expect(res.body.dates).toEqual(["2026-02-01T00:00:00Z"]);
      expect(res.body.values).toEqual([90]);
    });

    it("an interval snapshot fills every hourly bucket it covers", async () => {
      const res = await dynamics(
        { source_id: "fp-int", interval: "1h", date_from: "2026-02-10T10:00:00Z", date_to: "2026-02-10T12:00:00Z" },
        "prod-interval",
      );
      expect(res.status).toBe(200);
      expect(res.body.dates).toEqual(["2026-02-10T10:00:00Z", "2026-02-10T11:00:00Z", "2026-02-10T12:00:00Z"]);
      expect(res.body.values).toEqual([77, 77, 77]);
    });

    it("rejects unknown_metric, 12h, reversed dates and an unknown source", async () => {
      await expectError({ field: "unknown_metric" }, 400, "unsupported field: unknown_metric");
      await expectError({ interval: "12h" }, 400, "unsupported interval: 12h");
      await expectError({ date_from: "2026-02-04T00:00:00Z" }, 422, "date_from must be <= date_to");
      await expectError({ source_id: "missing" }, 404, "source not found");
    });
  });

  describe("fields and intervals", () => {
    it.each([
      ["price", [90, null, 80]],
      ["available_count", [4, null, 3]],
      ["discount_price", [null, null, null]],
      ["loyal_price", [null, null, null]],
    ])("field=%s", async (field, expected) => {
      expect(await values({ field })).toEqual(expected);
    });

    it("6h buckets", async () => {
      const res = await dynamics({ interval: "6h", date_from: "2026-02-01T06:00:00Z", date_to: "2026-02-01T23:00:00Z" });
      expect(res.body.dates).toEqual(["2026-02-01T06:00:00Z", "2026-02-01T12:00:00Z", "2026-02-01T18:00:00Z"]);
      expect(res.body.values).toEqual([100, 90, null]);
    });

    it("7d bucket: the latest observation of the week wins", async () => {
      expect(await values({ interval: "7d", date_from: "2026-01-29T00:00:00Z", date_to: "2026-02-04T00:00:00Z" })).toEqual([80]);
    });

    it("the grid is anchored at date_from, not at midnight; the last bucket is cut at date_to", async () => {
      const res = await dynamics({ date_from: "2026-02-01T12:00:00Z", date_to: "2026-02-03T12:00:00Z" });
      expect(res.body.dates).toEqual(["2026-02-01T12:00:00Z", "2026-02-02T12:00:00Z", "2026-02-03T12:00:00Z"]);
      expect(res.body.values).toEqual([90, 80, null]);
    });

    it("another source of the same product has its own series", async () => {
      expect(await values({ parser_name: "chizhik", source_id: "ch-1" })).toEqual([null, 120, null]);
    });

    it("date_from == date_to yields one point", async () => {
      const res = await dynamics({ interval: "1h", date_from: "2026-02-01T15:00:00Z", date_to: "2026-02-01T15:00:00Z" });
      expect(res.body.dates).toEqual(["2026-02-01T15:00:00Z"]);
      expect(res.body.values).toEqual([90]);
    });

    it("the point count is floor((to - from) / step) + 1", async () => {
      const res = await dynamics({ interval: "1h", date_from: "2026-02-01T09:00:00Z", date_to: "2026-02-01T10:59:59Z" });
      expect(res.body.dates).toEqual(["2026-02-01T09:00:00Z", "2026-02-01T10:00:00Z"]);
      expect(res.body.values).toEqual([null, 100]);
    });

    it("keeps a date_from fraction in the dates and meta", async () => {
      const res = await dynamics({ interval: "1h", date_from: "2026-02-01T09:00:00.5Z", date_to: "2026-02-01T10:00:00.25Z" });
      expect(res.status).toBe(200);
      expect(res.body.dates).toEqual(["2026-02-01T09:00:00.500000Z"]);
      expect(res.body.values).toEqual([100]);
      expect(res.body.meta.date_from).toBe("2026-02-01T09:00:00.500000Z");
      expect(res.body.meta.date_to).toBe("2026-02-01T10:00:00.250000Z");
    });

    it("allows exactly 20000 points and rejects 20001", async () => {
      const from = Date.UTC(2026, 0, 1);
      const hour = 3_600_000;
      const ok = await dynamics({ interval: "1h", date_from: isoZ(from), date_to: isoZ(from + 19_999 * hour) });
      expect(ok.status).toBe(200);
      expect(ok.body.dates).toHaveLength(20_000);
      expect(ok.body.values).toHaveLength(20_000);
      expect(ok.body.dates[19_999]).toBe(isoZ(from + 19_999 * hour));
      await expectError(
        { interval: "1h", date_from: isoZ(from), date_to: isoZ(from + 20_000 * hour) },
        400,
        "requested range is too large",
      );
      await expectError(
        { interval: "1d", date_from: "1900-01-01T00:00:00Z", date_to: "2026-01-01T00:00:00Z" },
        400,
        "requested range is too large",
      );
    });
  });

  describe("date parsing", () => {
    it.each([
      ["2026-02-01T03:00:00+03:00", "2026-02-03T23:59:59Z"],
      ["2026-01-31T18:30:00-05:30", "2026-02-03T23:59:59Z"],
      ["2026-02-01T00:00:00+00:00", "2026-02-04T02:59:59+03:00"],
      ["2026-02-01 00:00:00+00:00", "2026-02-03 23:59:59Z"],
      ["2026-02-01T03:00:00+0300", "2026-02-03T23:59:59Z"],
      ["2026-02-01T00:00:00.000Z", "2026-02-03T23:59:59.000000+00:00"],
    ])("from %s to %s is normalised to UTC", async (date_from, date_to) => {
      const res = await dynamics({ date_from, date_to });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.meta).toMatchObject({ date_from: "2026-02-01T00:00:00Z", date_to: "2026-02-03T23:59:59Z" });
      expect(res.body.values).toEqual([90, null, 80]);
    });

    it.each(["2026-02-01", "2026-02-01T00:00:00", "2026-02-01 00:00:00.123456"])("%s -> 422 datetime must include timezone", async (d) => {
      await expectError({ date_from: d }, 422, "datetime must include timezone");
      await expectError({ date_to: d, date_from: "2026-01-01T00:00:00Z" }, 422, "datetime must include timezone");
    });

    it.each(["garbage", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-02-01T25:00:00Z", "yesterday"])(
      "%s -> 422 datetime must be valid ISO8601",
      async (d) => {
        await expectError({ date_from: d }, 422, "datetime must be valid ISO8601");
      },
    );

    it("a blank date -> 422 datetime value must be non-empty", async () => {
      await expectError({ date_from: "   " }, 422, "datetime value must be non-empty");
      await expectError({ date_to: " " }, 422, "datetime value must be non-empty");
    });
  });

  describe("validation order: FastAPI -> date_from -> date_to -> from<=to -> field -> interval -> size -> existence", () => {
    it("missing or empty required parameters -> 422 FastAPI list", async () => {
      const none = await catalog.get("/products/prod-1/dynamics");
      expect(none.status).toBe(422);
      const locs = none.body.detail.map((e: { loc: string[] }) => e.loc.join("."));
      expect(locs.sort()).toEqual(
        Object.keys(base)
          .map((k) => `query.${k}`)
          .sort(),
      );
      for (const e of none.body.detail) expect(e.type).toBe("missing");
      const { interval: _omitted, ...rest } = base;
      const missing = await catalog.get(url("/products/prod-1/dynamics", rest));
      expect(missing.body.detail).toEqual([expect.objectContaining({ type: "missing", loc: ["query", "interval"] })]);
      const empty = await dynamics({ parser_name: "" });
      expect(empty.status).toBe(422);
      expect(empty.body.detail).toEqual([expect.objectContaining({ type: "string_too_short", loc: ["query", "parser_name"] })]);
    });

    it("a bad field or interval on an unknown product is 400, not 404", async () => {
      await expectError({ field: "rating" }, 400, "unsupported field: rating", "nope");
      await expectError({ interval: "2h" }, 400, "unsupported interval: 2h", "nope");
      await expectError({ interval: "1h", date_from: "2020-01-01T00:00:00Z" }, 400, "requested range is too large", "nope");
    });

    it("dates are checked before field and interval, field before interval", async () => {
      await expectError({ date_from: "bad", field: "x", interval: "y" }, 422, "datetime must be valid ISO8601");
      await expectError({ date_from: "2026-02-01T00:00:00", date_to: "bad" }, 422, "datetime must include timezone");
      await expectError({ date_to: "bad", field: "x" }, 422, "datetime must be valid ISO8601");
      await expectError({ date_from: "2026-03-01T00:00:00Z", field: "x" }, 422, "date_from must be <= date_to");
      await expectError({ field: "x", interval: "y" }, 400, "unsupported field: x");
      await expectError({ interval: "y", date_from: "1900-01-01T00:00:00Z" }, 400, "unsupported interval: y");
    });

    it("field and interval match exactly", async () => {
      await expectError({ field: "Price" }, 400, "unsupported field: Price");
      await expectError({ interval: "1D" }, 400, "unsupported interval: 1D");
      await expectError({ field: "rating" }, 400, "unsupported field: rating");
    });

    it("product, parser_name and source_id match exactly -> 404 source not found", async () => {
      await expectError({}, 404, "source not found", "nope");
      await expectError({ parser_name: "FIXPRICE" }, 404, "source not found");
      await expectError({ source_id: "FP-1" }, 404, "source not found");
      await expectError({ parser_name: "chizhik" }, 404, "source not found");
    });

    it("an existing source without snapshots in range answers all nulls", async () => {
      expect(await values({ date_from: "2025-01-01T00:00:00Z", date_to: "2025-01-03T00:00:00Z" })).toEqual([null, null, null]);
    });
  });
});
