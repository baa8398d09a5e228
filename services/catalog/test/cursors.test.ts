/** GET /sync/cursors. */
import { describe, expect, it } from "vitest";
import { type Backend, backends, insert, openFixtureCatalog, useCatalog } from "./support/fixture.js";

function extraCursors(backend: Backend): string {
  return insert(backend, "converter_sync_state", [
    { key: "receiver_cursor:chizhik", value: "no-tab-here", updated_at: null },
    { key: "receiver_cursor:perekrestok", value: " 2026-02-04T00:00:00+00:00 \tabc", updated_at: "2026-02-04T00:00:05+00:00" },
    { key: "receiver_cursor:magnit", value: "a\tb\t77", updated_at: "2026-02-05T10:00:00.5+00:00" },
    { key: "other_state:fixprice", value: "2026-02-03T00:00:00+00:00\t999", updated_at: null },
  ]);
}

const fixprice = { parser_name: "fixprice", ingested_at: "2026-02-03T00:00:00+00:00", product_id: 123, updated_at: "2026-02-03T00:00:00Z" };

describe.each(backends)("GET /sync/cursors [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend, extraCursors));

  it("returns the fixprice cursor with product_id 123 (original test)", async () => {
    const res = await catalog.get("/sync/cursors?parser_name=fixprice");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [fixprice] });
  });

  it("lists every receiver cursor ordered by key, without meta", async () => {
    const res = await catalog.get("/sync/cursors");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["items"]);
    expect(res.body.items).toEqual([
      { parser_name: "chizhik", ingested_at: null, product_id: null, updated_at: null },
      fixprice,
      { parser_name: "magnit", ingested_at: "a\tb", product_id: 77, updated_at: "2026-02-05T10:00:00.500000Z" },
      { parser_name: "perekrestok", ingested_at: "2026-02-04T00:00:00+00:00", product_id: null, updated_at: "2026-02-04T00:00:05Z" },
    ]);
  });

  it("trims and lower-cases parser_name", async () => {
    for (const name of ["FixPrice", " fixprice ", "FIXPRICE"]) {
      const res = await catalog.get(`/sync/cursors?parser_name=${encodeURIComponent(name)}`);
      expect(res.body, name).toEqual({ items: [fixprice] });
    }
  });

  it("an unknown parser is 200 with no items", async () => {
    const res = await catalog.get("/sync/cursors?parser_name=unknown");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
  });
});

describe.each(backends)("GET /sync/cursors without converter_sync_state [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend, "DROP TABLE converter_sync_state;"));

  it("answers an empty list", async () => {
    for (const path of ["/sync/cursors", "/sync/cursors?parser_name=fixprice"]) {
      const res = await catalog.get(path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({ items: [] });
    }
  });
});
