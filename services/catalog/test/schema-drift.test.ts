/**
 * Later converter schemas drop tables and columns and make canonical ids native UUIDs. The service
 * reads what is there: missing columns as null, missing tables as empty, and a non-UUID id on a
 * uuid column as unknown (404), never a 500.
 */
import { describe, expect, it } from "vitest";
import { backends, insert, openCatalog, product, snapshot, T, useCatalog } from "./support/fixture.js";

const DROPPED_COLUMNS = ["price", "discount_price", "loyal_price", "price_unit", "available_count"];
const ID = "0b6d3d1e-7f1a-4c55-9a43-3d3c6f0e8a21";

function driftSql(backend: (typeof backends)[number]): string {
  const listing = product({
    id: 1,
    canonical_product_id: ID,
    parser_name: "magnit",
    source_id: "m-1",
    observed_at: T("02-03", "09:00:00"),
  });
  for (const column of DROPPED_COLUMNS) delete listing[column];
  const drop = [
    "DROP TABLE catalog_categories;",
    "DROP TABLE catalog_settlements;",
    "DROP TABLE converter_sync_state;",
    ...DROPPED_COLUMNS.map((c) => `ALTER TABLE catalog_products DROP COLUMN ${c};`),
  ];
  const uuid =
    backend === "postgres"
      ? [
          "ALTER TABLE catalog_products ALTER COLUMN canonical_product_id TYPE uuid USING canonical_product_id::uuid;",
          "ALTER TABLE catalog_product_snapshots ALTER COLUMN canonical_product_id TYPE uuid USING canonical_product_id::uuid;",
        ]
      : [];
  const snap = snapshot({
    id: 1,
    canonical_product_id: ID,
    parser_name: "magnit",
    source_id: "m-1",
    observed_at: T("02-03", "09:00:00"),
    price: 50,
  });
  return [...drop, ...uuid, insert(backend, "catalog_products", [listing]), insert(backend, "catalog_product_snapshots", [snap])].join(
    "\n",
  );
}

describe.each(backends)("a catalog from a later converter schema (%s)", (backend) => {
  const catalog = useCatalog(backend, () => openCatalog(backend, driftSql));

  it("lists products with the dropped price columns as null", async () => {
    const reply = await catalog.get("/products");
    expect(reply.status).toBe(200);
    expect(reply.body.meta.total).toBe(1);
    expect(reply.body.items[0]).toMatchObject({ canonical_product_id: ID, price_from: null, price_unit: null, parsers: ["magnit"] });
  });

  it("answers sources without the missing category and settlement tables", async () => {
    const reply = await catalog.get(`/products/${ID}/sources`);
    expect(reply.status).toBe(200);
    expect(reply.body.items[0]).toMatchObject({ id: 1, price: null, available_count: null, primary_category: null, settlement: null });
  });

  it("reads missing tables as empty", async () => {
    expect((await catalog.get("/categories")).body).toEqual({ items: [], meta: { limit: 20, offset: 0, total: 0 } });
    expect((await catalog.get("/settlements")).body.meta.total).toBe(0);
    expect((await catalog.get("/sync/cursors")).body).toEqual({ items: [] });
    expect((await catalog.get("/products/count?region=moscow")).body.products_count).toBe(0);
  });

  it("still computes dynamics", async () => {
    const reply = await catalog.get(
      `/products/${ID}/dynamics?parser_name=magnit&source_id=m-1&field=price&date_from=2026-02-03T00:00:00Z&date_to=2026-02-03T23:59:59Z&interval=1d`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.values).toEqual([50]);
  });

  it("answers 404, not 500, for an id that cannot exist", async () => {
    for (const path of ["/products/not-a-uuid", "/products/not-a-uuid/sources", "/products/not-a-uuid/snapshots"]) {
      const reply = await catalog.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toEqual({ detail: "product_not_found" });
    }
    const dynamics = await catalog.get(
      "/products/not-a-uuid/dynamics?parser_name=magnit&source_id=m-1&field=price&date_from=2026-02-03T00:00:00Z&date_to=2026-02-03T00:00:00Z&interval=1d",
    );
    expect(dynamics.status).toBe(404);
    expect(dynamics.body).toEqual({ detail: "source not found" });
  });
});
