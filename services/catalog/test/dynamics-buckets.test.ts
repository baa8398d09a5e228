/**
 * Bucket filling of GET /products/{id}/dynamics on extra snapshots: which snapshots are loaded,
 * how they are clipped to buckets and which one wins, and our fix for stored timestamps without
 * an offset (read as UTC, compared as instants).
 */
import { describe, expect, it } from "vitest";
import { type Backend, backends, insert, naive, openFixtureCatalog, snapshot, url, useCatalog, type Value } from "./support/fixture.js";

const at = (day: string, time: string): string => `2026-${day}T${time}+00:00`;

function snap(id: number, product: string, fields: { observed: Value; from?: Value; to?: Value; price: number | null }) {
  return snapshot({
    id,
    canonical_product_id: product,
    parser_name: "fixprice",
    source_id: `src-${product}`,
    observed_at: fields.observed,
    valid_from_at: fields.from === undefined ? fields.observed : fields.from,
    valid_to_at: fields.to === undefined ? fields.observed : fields.to,
    price: fields.price,
  });
}

function extraSnapshots(backend: Backend): string {
  return insert(backend, "catalog_product_snapshots", [
    // A newer snapshot whose field is NULL blanks the bucket.
    snap(301, "dyn-null", { observed: at("03-01", "23:00:00"), from: at("03-01", "00:00:00"), price: 50 }),
    snap(302, "dyn-null", { observed: at("03-01", "23:30:00"), price: null }),
    // One long interval.
    snap(311, "dyn-long", { observed: at("01-31", "00:00:00"), from: at("01-01", "00:00:00"), price: 10 }),
    // Older data: NULL valid_* columns, observed_at is used.
    snap(321, "dyn-legacy", { observed: at("03-01", "05:00:00"), from: null, to: null, price: 1 }),
    snap(322, "dyn-legacy", { observed: at("03-01", "07:30:00"), from: null, to: null, price: 2 }),
    // Equal observed_at: the higher id wins (inserted first on purpose).
    snap(332, "dyn-tie", { observed: at("03-02", "10:00:00"), price: 6 }),
    snap(331, "dyn-tie", { observed: at("03-02", "10:00:00"), price: 5 }),
    // valid_to before valid_from: swapped.
    snap(341, "dyn-swap", { observed: at("03-03", "12:00:00"), from: at("03-03", "12:00:00"), to: at("03-03", "10:00:00"), price: 9 }),
    // A long interval observed later beats a point observed earlier inside it.
    snap(351, "dyn-overlap", { observed: at("03-04", "23:00:00"), from: at("03-04", "00:00:00"), price: 20 }),
    snap(352, "dyn-overlap", { observed: at("03-04", "05:00:00"), price: 30 }),
    snap(353, "dyn-overlap", { observed: at("03-05", "01:00:00"), price: 40 }),
    // Stored without offset (what the converter writes into SQLite): read as UTC.
    snap(361, "dyn-naive", { observed: naive("2026-02-01 10:00:00"), price: 42 }),
    snap(362, "dyn-naive", { observed: naive("2026-02-02 23:30:00.500000"), price: 43 }),
    snap(363, "dyn-naive", { observed: naive("2026-02-03 00:30:00"), from: naive("2026-02-02 22:00:00"), price: 44 }),
  ]);
}

describe.each(backends)("dynamics buckets [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend, extraSnapshots));

  async function series(product: string, interval: string, from: string, to: string) {
    const res = await catalog.get(
      url(`/products/${product}/dynamics`, {
        parser_name: "fixprice",
        source_id: `src-${product}`,
        field: "price",
        interval,
        date_from: from,
        date_to: to,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.values).toHaveLength(res.body.dates.length);
    return res.body as { dates: string[]; values: (number | null)[] };
  }

  it("a newer snapshot with a NULL value blanks the bucket; no carry forward", async () => {
    expect((await series("dyn-null", "1d", "2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z")).values).toEqual([null]);
    expect((await series("dyn-null", "1h", "2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z")).values).toEqual([50, 50]);
    expect((await series("dyn-null", "1h", "2026-03-01T22:00:00Z", "2026-03-01T23:59:00Z")).values).toEqual([50, null]);
    expect((await series("dyn-null", "1d", "2026-03-01T00:00:00Z", "2026-03-03T00:00:00Z")).values).toEqual([null, null, null]);
  });

  it("a long interval fills every bucket it touches, ends inclusive, clipped to the range", async () => {
    expect((await series("dyn-long", "1d", "2026-01-05T00:00:00Z", "2026-01-10T00:00:00Z")).values).toEqual([10, 10, 10, 10, 10, 10]);
    const before = await series("dyn-long", "1d", "2025-12-30T00:00:00Z", "2026-01-02T00:00:00Z");
    expect(before.dates).toEqual(["2025-12-30T00:00:00Z", "2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]);
    expect(before.values).toEqual([null, null, 10, 10]);
    expect((await series("dyn-long", "1d", "2026-01-30T00:00:00Z", "2026-02-02T00:00:00Z")).values).toEqual([10, 10, null, null]);
    const weeks = await series("dyn-long", "7d", "2025-12-01T00:00:00Z", "2026-03-01T00:00:00Z");
    expect(weeks.values).toEqual([null, null, null, null, 10, 10, 10, 10, 10, null, null, null, null]);
  });

  it("point snapshots with NULL valid_* fill only their own bucket", async () => {
    const res = await series("dyn-legacy", "1h", "2026-03-01T04:00:00Z", "2026-03-01T08:00:00Z");
    expect(res.values).toEqual([null, 1, null, 2, null]);
    expect((await series("dyn-legacy", "1d", "2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z")).values).toEqual([2]);
    // date_from == date_to covers that instant only
    expect((await series("dyn-legacy", "1h", "2026-03-01T05:00:00Z", "2026-03-01T05:00:00Z")).values).toEqual([1]);
    expect((await series("dyn-legacy", "1h", "2026-03-01T05:00:01Z", "2026-03-01T05:00:01Z")).values).toEqual([null]);
  });

  it("on equal observed_at the higher id wins", async () => {
    expect((await series("dyn-tie", "1h", "2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z")).values).toEqual([6]);
  });

  it("an interval with valid_to before valid_from is swapped", async () => {
    expect((await series("dyn-swap", "1h", "2026-03-03T10:00:00Z", "2026-03-03T12:00:00Z")).values).toEqual([9, 9, 9]);
  });

  it("the latest observed_at wins, even over a point inside its interval", async () => {
    expect((await series("dyn-overlap", "1h", "2026-03-04T04:00:00Z", "2026-03-04T06:00:00Z")).values).toEqual([20, 20, 20]);
    expect((await series("dyn-overlap", "1d", "2026-03-04T00:00:00Z", "2026-03-05T23:00:00Z")).values).toEqual([20, 40]);
  });

  describe("stored timestamps without offset are UTC instants (deliberate fix)", () => {
    it("a snapshot at naive 2026-02-01 10:00:00 is inside date_from=2026-02-01T00:00:00Z", async () => {
      const res = await series("dyn-naive", "1d", "2026-02-01T00:00:00Z", "2026-02-01T23:59:59Z");
      expect(res.values).toEqual([42]);
    });

    it("later rows on date_to's day stay out", async () => {
      expect((await series("dyn-naive", "1d", "2026-02-01T00:00:00Z", "2026-02-02T12:00:00Z")).values).toEqual([42, null]);
      expect((await series("dyn-naive", "1h", "2026-02-02T21:00:00Z", "2026-02-02T23:00:00Z")).values).toEqual([null, 44, 44]);
    });

    it("compares instants, not text, across offsets", async () => {
      const res = await series("dyn-naive", "1h", "2026-02-03T01:30:00+03:00", "2026-02-03T03:30:00+03:00");
      expect(res.dates).toEqual(["2026-02-02T22:30:00Z", "2026-02-02T23:30:00Z", "2026-02-03T00:30:00Z"]);
      expect(res.values).toEqual([44, 44, 44]);
    });

    it("/snapshots outputs them with Z", async () => {
      const res = await catalog.get("/products/dyn-naive/snapshots?sort=observed_at_asc");
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: { observed_at: string }) => i.observed_at)).toEqual([
        "2026-02-01T10:00:00Z",
        "2026-02-02T23:30:00.500000Z",
        "2026-02-03T00:30:00Z",
      ]);
      expect(res.body.items[2]).toMatchObject({ valid_from_at: "2026-02-02T22:00:00Z", valid_to_at: "2026-02-03T00:30:00Z" });
    });
  });
});
