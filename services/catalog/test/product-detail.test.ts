/** GET /products/{id}, /products/{id}/sources, /products/{id}/snapshots. */
import { describe, expect, it } from "vitest";
import { prod1Item, prod2Item, snapshot103, source1 } from "./support/expected.js";
import { backends, imageOf, useCatalog } from "./support/fixture.js";

const snapshotKeys = Object.keys(snapshot103).sort();
const sourceKeys = Object.keys(source1).sort();
const idsOf = (items: readonly { id: number }[]): number[] => items.map((i) => i.id);

describe.each(backends)("product detail routes [%s]", (backend) => {
  const catalog = useCatalog(backend);

  describe("GET /products/{id}", () => {
    it("returns the single item, not wrapped", async () => {
      const one = await catalog.get("/products/prod-1");
      expect(one.status).toBe(200);
      expect(one.body).toEqual(prod1Item);
      expect((await catalog.get("/products/prod-2")).body).toEqual(prod2Item);
    });

    it("is 404 product_not_found for an unknown id and for a snapshots-only product", async () => {
      for (const id of ["nope", "prod-interval", "PROD-1"]) {
        const res = await catalog.get(`/products/${id}`);
        expect(res.status, id).toBe(404);
        expect(res.body).toEqual({ detail: "product_not_found" });
      }
    });

    it("treats /products/common as product id 'common'", async () => {
      const res = await catalog.get("/products/common");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "product_not_found" });
    });
  });

  describe("GET /products/{id}/sources", () => {
    it("lists the 2 sources of prod-1 with images (original test)", async () => {
      const res = await catalog.get("/products/prod-1/sources");
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(2);
      for (const item of res.body.items) expect(item.image_urls.length).toBeGreaterThan(0);
    });

    it("answers every field, newest first by default", async () => {
      const res = await catalog.get("/products/prod-1/sources");
      expect(res.body.meta).toEqual({ limit: 20, offset: 0, total: 2 });
      expect(idsOf(res.body.items)).toEqual([2, 1]);
      const [chizhik, fixprice] = res.body.items;
      expect(Object.keys(fixprice).sort()).toEqual(sourceKeys);
      expect(fixprice).toEqual(source1);
      expect(chizhik).toMatchObject({
        id: 2,
        parser_name: "chizhik",
        source_id: "ch-1",
        plu: null,
        brand: null,
        price: 110,
        discount_price: null,
        loyal_price: null,
        rating: 4.1,
        reviews_count: null,
        promo: false,
        is_new: true,
        hit: null,
        adult: null,
        observed_at: "2026-02-04T09:00:00Z",
        image_urls: [imageOf("ch-1")],
      });
    });

    it("sorts observed_at_asc and pages", async () => {
      expect(idsOf((await catalog.get("/products/prod-1/sources?sort=observed_at_asc")).body.items)).toEqual([1, 2]);
      const page = await catalog.get("/products/prod-1/sources?limit=1&offset=1");
      expect(idsOf(page.body.items)).toEqual([1]);
      expect(page.body.meta).toEqual({ limit: 1, offset: 1, total: 2 });
      const past = await catalog.get("/products/prod-1/sources?offset=9");
      expect(past.status).toBe(200);
      expect(past.body.items).toEqual([]);
      expect(past.body.meta.total).toBe(2);
    });

    it("rejects an unknown sort with 400, before the existence check", async () => {
      for (const id of ["prod-1", "nope"]) {
        const res = await catalog.get(`/products/${id}/sources?sort=price_asc`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ detail: "unsupported sort: price_asc" });
      }
    });

    it("is 200 and empty for a snapshots-only product, 404 for an unknown one", async () => {
      const interval = await catalog.get("/products/prod-interval/sources");
      expect(interval.status).toBe(200);
      expect(interval.body).toEqual({ items: [], meta: { limit: 20, offset: 0, total: 0 } });
      const unknown = await catalog.get("/products/nope/sources");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: "product_not_found" });
    });

    it("validates limit and offset", async () => {
      for (const q of ["limit=0", "limit=101", "offset=-1", "limit=x"]) {
        const res = await catalog.get(`/products/prod-1/sources?${q}`);
        expect(res.status, q).toBe(422);
        expect(Array.isArray(res.body.detail), q).toBe(true);
      }
    });
  });

  describe("GET /products/{id}/snapshots", () => {
    it("filters by parser_name: 3 snapshots, newest evt-103 (original test)", async () => {
      const res = await catalog.get("/products/prod-1/snapshots?parser_name=fixprice");
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(3);
      const newest = res.body.items[0];
      expect(newest.source_event_uid).toBe("evt-103");
      expect(newest.receiver_product_id).toBe(1);
      expect(newest.valid_from_at).toBe("2026-02-03T09:00:00Z");
      expect(newest.valid_to_at).toBe("2026-02-03T09:00:00Z");
    });

    it("answers every field", async () => {
      const res = await catalog.get("/products/prod-1/snapshots?parser_name=fixprice&limit=1");
      expect(Object.keys(res.body.items[0]).sort()).toEqual(snapshotKeys);
      expect(res.body.items[0]).toEqual(snapshot103);
      expect(res.body.meta).toEqual({ limit: 1, offset: 0, total: 3 });
    });

    it("orders newest first by default and oldest first with observed_at_asc", async () => {
      const desc = await catalog.get("/products/prod-1/snapshots");
      expect(idsOf(desc.body.items)).toEqual([103, 104, 102, 101]);
      expect(desc.body.meta).toEqual({ limit: 20, offset: 0, total: 4 });
      const asc = await catalog.get("/products/prod-1/snapshots?sort=observed_at_asc");
      expect(idsOf(asc.body.items)).toEqual([101, 102, 104, 103]);
      const page = await catalog.get("/products/prod-1/snapshots?limit=2&offset=1");
      expect(idsOf(page.body.items)).toEqual([104, 102]);
      expect(page.body.meta).toEqual({ limit: 2, offset: 1, total: 4 });
    });

    it("filters by source_id and parser_name, exactly", async () => {
      const chizhik = await catalog.get("/products/prod-1/snapshots?source_id=ch-1");
      expect(idsOf(chizhik.body.items)).toEqual([104]);
      expect(chizhik.body.items[0]).toMatchObject({ source_run_id: "receiver:run-2:1", price: 120, source_event_uid: "evt-104" });
      const both = await catalog.get("/products/prod-1/snapshots?parser_name=fixprice&source_id=fp-1&sort=observed_at_asc");
      expect(idsOf(both.body.items)).toEqual([101, 102, 103]);
      expect(both.body.items.map((i: { price: number }) => i.price)).toEqual([100, 90, 80]);
      const upper = await catalog.get("/products/prod-1/snapshots?parser_name=FIXPRICE");
      expect(upper.status).toBe(200);
      expect(upper.body.meta.total).toBe(0);
      const empty = await catalog.get("/products/prod-1/snapshots?parser_name=");
      expect(empty.body.meta.total).toBe(4);
    });

    it("an existing product whose filters match nothing is 200 with no items", async () => {
      const res = await catalog.get("/products/prod-1/snapshots?source_id=none");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], meta: { limit: 20, offset: 0, total: 0 } });
    });

    it("serves snapshots-only products with their interval", async () => {
      const res = await catalog.get("/products/prod-interval/snapshots");
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(1);
      expect(res.body.items[0]).toMatchObject({
        id: 201,
        source_id: "fp-int",
        source_run_id: "receiver:run-interval:1",
        price: 77,
        valid_from_at: "2026-02-10T10:00:00Z",
        valid_to_at: "2026-02-10T12:00:00Z",
        observed_at: "2026-02-10T12:00:00Z",
      });
    });

    it("is 404 product_not_found for an unknown product; unknown sort is 400 first", async () => {
      const unknown = await catalog.get("/products/nope/snapshots");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: "product_not_found" });
      const sort = await catalog.get("/products/nope/snapshots?sort=newest");
      expect(sort.status).toBe(400);
      expect(sort.body).toEqual({ detail: "unsupported sort: newest" });
    });

    it("validates limit and offset", async () => {
      for (const q of ["limit=0", "limit=101", "offset=-1", "offset=1.5"]) {
        expect((await catalog.get(`/products/prod-1/snapshots?${q}`)).status, q).toBe(422);
      }
    });
  });
});
