/** GET /openapi.json and GET /docs (reference section 2: FastAPI's defaults, title "Endpoint Read-Only API"). */
import { describe, expect, it } from "vitest";
import { backends, useCatalog } from "./support/fixture.js";

const routes = [
  "/healthz",
  "/products",
  "/products/count",
  "/products/{canonical_product_id}",
  "/products/{canonical_product_id}/sources",
  "/products/{canonical_product_id}/snapshots",
  "/products/{canonical_product_id}/dynamics",
  "/products/common/count",
  "/categories",
  "/categories/{category_id}",
  "/settlements",
  "/settlements/{settlement_id}",
  "/sync/cursors",
];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

describe.each(backends)("OpenAPI [%s]", (backend) => {
  const catalog = useCatalog(backend);

  it("serves an OpenAPI document titled 'Endpoint Read-Only API' listing every route as GET only", async () => {
    const res = await catalog.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe("Endpoint Read-Only API");
    expect(doc.info.version).toBe("0.1.0");
    for (const route of routes) {
      expect(doc.paths, route).toHaveProperty([route]);
      expect(Object.keys(doc.paths[route]).filter((k) => ["get", "post", "put", "patch", "delete", "head", "options"].includes(k))).toEqual(
        ["get"],
      );
    }
  });

  it("documents the query parameters of /products and the required ones of /dynamics", async () => {
    const doc = (await catalog.get("/openapi.json")).body;
    const products: Parameter[] = doc.paths["/products"].get.parameters;
    const names = products.filter((p) => p.in === "query").map((p) => p.name);
    const expected = ["limit", "offset", "q", "parser_name", "category_id", "settlement_id", "brand", "promo", "is_new", "hit"];
    expected.push("adult", "price_min", "price_max", "sort");
    for (const name of expected) expect(names, name).toContain(name);
    const dynamics: Parameter[] = doc.paths["/products/{canonical_product_id}/dynamics"].get.parameters;
    const required = dynamics.filter((p) => p.in === "query" && p.required).map((p) => p.name);
    expect(required.sort()).toEqual(["date_from", "date_to", "field", "interval", "parser_name", "source_id"]);
    const path = dynamics.find((p) => p.in === "path");
    expect(path?.name).toBe("canonical_product_id");
  });

  it("serves the docs UI as HTML at /docs", async () => {
    const res = await catalog.get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
  });
});
