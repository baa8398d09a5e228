/**
 * GET /openapi.json and GET /docs (FastAPI's defaults, as the original service has them, title
 * "Endpoint Read-Only API"): the document's structure, FastAPI's naming, agreement with the routes'
 * validation schemas, `servers` behind a prefix, and the docs page's assets.
 * Response bodies are checked against the document in openapi-responses.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Catalog } from "../src/domain/catalog.js";
import { routeSpecs } from "../src/http/routes.js";
import { backends, type Json, useCatalog } from "./support/fixture.js";

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
  schema: Json;
}

const operation = (doc: Json, path: string) => doc.paths[path].get;
const parameter = (doc: Json, path: string, name: string): Parameter =>
  operation(doc, path).parameters.find((p: Parameter) => p.name === name);

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
    expect(Object.keys(doc.paths).sort()).toEqual([...routes].sort());
    for (const route of routes) {
      expect(Object.keys(doc.paths[route]).filter((k) => ["get", "post", "put", "patch", "delete", "head", "options"].includes(k))).toEqual(
        ["get"],
      );
    }
  });

  it("documents the query parameters of /products and the required ones of /dynamics", async () => {
    const doc = (await catalog.get("/openapi.json")).body;
    const products: Parameter[] = operation(doc, "/products").parameters;
    const names = products.filter((p) => p.in === "query").map((p) => p.name);
    const expected = ["limit", "offset", "q", "parser_name", "category_id", "settlement_id", "brand", "promo", "is_new", "hit"];
    expected.push("adult", "price_min", "price_max", "sort");
    for (const name of expected) expect(names, name).toContain(name);
    const dynamics: Parameter[] = operation(doc, "/products/{canonical_product_id}/dynamics").parameters;
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

describe("OpenAPI document in FastAPI's form", () => {
  const catalog = useCatalog("sqlite");
  const doc = async (headers: Record<string, string> = {}) => (await catalog.app.inject({ url: "/openapi.json", headers })).json();

  it.each([
    ["/healthz", "healthz_healthz_get", "Healthz", "health"],
    ["/products", "list_products_products_get", "List Products", "products"],
    ["/products/count", "count_products_products_count_get", "Count Products", "products"],
    ["/products/common/count", "count_common_products_products_common_count_get", "Count Common Products", "products"],
    ["/products/{canonical_product_id}", "get_product_products__canonical_product_id__get", "Get Product", "products"],
    [
      "/products/{canonical_product_id}/dynamics",
      "get_product_dynamics_products__canonical_product_id__dynamics_get",
      "Get Product Dynamics",
      "products",
    ],
    ["/categories/{category_id}", "get_category_categories__category_id__get", "Get Category", "categories"],
    ["/sync/cursors", "list_sync_cursors_sync_cursors_get", "List Sync Cursors", "sync"],
  ])("%s: operationId %s, summary %s, tag %s", async (path, id, summary, tag) => {
    const op = operation(await doc(), path);
    expect(op).toMatchObject({ operationId: id, summary, tags: [tag] });
  });

  it("has unique operationIds and lists its tags", async () => {
    const d = await doc();
    const ids = routes.map((r) => operation(d, r).operationId);
    expect(new Set(ids).size).toBe(routes.length);
    const used = new Set(routes.flatMap((r) => operation(d, r).tags));
    expect(d.tags.map((t: { name: string }) => t.name).sort()).toEqual([...used].sort());
  });

  it("documents the parameters exactly as the routes validate them", async () => {
    const d = await doc();
    for (const spec of routeSpecs({} as Catalog)) {
      const path = spec.url.replace(/:(\w+)/g, "{$1}");
      const documented: Parameter[] = operation(d, path).parameters ?? [];
      for (const [part, schema] of [
        ["path", spec.params],
        ["query", spec.querystring],
      ] as const) {
        const mine = documented.filter((p) => p.in === part);
        const validated = schema?.properties ?? {};
        expect(mine.map((p) => p.name).sort(), `${part} parameters of ${path}`).toEqual(Object.keys(validated).sort());
        const required = new Set([...(schema?.required ?? []), ...(schema?.checkedByHandler ?? [])]);
        for (const p of mine) {
          const v = validated[p.name];
          expect(p.required, `${path} ${p.name} required`).toBe(part === "path" || required.has(p.name));
          expect(p.schema, `${path} ${p.name}`).toMatchObject({ type: v?.type });
          for (const key of ["enum", "default", "minimum", "maximum", "minLength", "format", "items"] as const) {
            expect(p.schema[key], `${path} ${p.name} ${key}`).toEqual(v?.[key]);
          }
        }
      }
    }
  });

  it("lists the allowed values of the enumerated parameters", async () => {
    const d = await doc();
    const sorts = ["observed_at_desc", "observed_at_asc", "price_asc", "price_desc", "rating_desc"];
    expect(parameter(d, "/products", "sort").schema.enum).toEqual(sorts);
    for (const path of ["/products/{canonical_product_id}/sources", "/products/{canonical_product_id}/snapshots"]) {
      expect(parameter(d, path, "sort").schema.enum).toEqual(["observed_at_desc", "observed_at_asc"]);
    }
    const dynamics = "/products/{canonical_product_id}/dynamics";
    expect(parameter(d, dynamics, "field").schema.enum).toEqual(["price", "discount_price", "loyal_price", "available_count"]);
    expect(parameter(d, dynamics, "interval").schema.enum).toEqual(["1h", "6h", "1d", "7d"]);
    expect(parameter(d, "/products/common/count", "scope")).toMatchObject({ required: true, schema: { enum: ["stores", "regions"] } });
  });

  it("documents 200 with a component schema, 503 everywhere, and 422 wherever there are parameters", async () => {
    const d = await doc();
    for (const path of routes) {
      const op = operation(d, path);
      const schemaOf = (status: string) => op.responses[status]?.content?.["application/json"]?.schema;
      expect(op.responses["200"].description).toBe("Successful Response");
      const ok = schemaOf("200").$ref.replace("#/components/schemas/", "");
      expect(d.components.schemas[ok], `${path} 200`).toMatchObject({ type: "object", properties: expect.any(Object) });
      expect(d.components.schemas[ok].required, `${path} 200 required`).toEqual(Object.keys(d.components.schemas[ok].properties));
      expect(schemaOf("503"), path).toEqual({ $ref: "#/components/schemas/HTTPError" });
      expect(Boolean(op.responses["422"]), `${path} 422`).toBe((op.parameters ?? []).length > 0);
      for (const status of Object.keys(op.responses)) expect(schemaOf(status), `${path} ${status}`).toBeDefined();
    }
    expect(operation(d, "/products/{canonical_product_id}").responses["404"]).toBeDefined();
    expect(operation(d, "/products").responses["400"]).toBeDefined();
  });

  it("uses FastAPI's HTTPValidationError and ValidationError components", async () => {
    const { schemas } = (await doc()).components;
    expect(schemas.HTTPValidationError).toEqual({
      title: "HTTPValidationError",
      type: "object",
      properties: { detail: { title: "Detail", type: "array", items: { $ref: "#/components/schemas/ValidationError" } } },
    });
    expect(schemas.ValidationError).toMatchObject({
      title: "ValidationError",
      type: "object",
      required: ["loc", "msg", "type"],
      properties: {
        loc: { title: "Location", type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
        msg: { title: "Message", type: "string" },
        type: { title: "Error Type", type: "string" },
      },
    });
    const validation = operation(await doc(), "/products").responses["422"];
    expect(validation).toMatchObject({
      description: "Validation Error",
      content: { "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" } } },
    });
  });

  it.each([
    [undefined, undefined],
    ["/catalog", "/catalog"],
    ["/catalog/", "/catalog"],
    ["/api, /catalog", "/api/catalog"],
    ["https://evil.example", undefined],
    ['/catalog"><script>', undefined],
    ["/catalog/../admin", undefined],
  ])("X-Forwarded-Prefix %j -> servers %j", async (prefix, server) => {
    for (const path of ["/openapi.json", "/docs/json"]) {
      const res = await catalog.app.inject({ url: path, headers: prefix === undefined ? {} : { "x-forwarded-prefix": prefix } });
      expect(res.headers.vary, path).toMatch(/X-Forwarded-Prefix/i);
      const d = res.json();
      if (server === undefined) expect(d.servers, path).toBeUndefined();
      else expect(d.servers, path).toEqual([{ url: server }]);
      expect(Object.keys(d.paths)).toHaveLength(routes.length);
    }
  });
});

describe("GET /docs", () => {
  const catalog = useCatalog("sqlite");

  it.each(["/docs", "/docs/"])("%s links only local assets, by relative URLs that load", async (page) => {
    const res = await catalog.get(page);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<title>Endpoint Read-Only API - Swagger UI</title>");
    const links = [...res.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThanOrEqual(5);
    for (const link of links) {
      expect(link, "relative, so it stays under a proxy's prefix").toMatch(/^\.\//);
      const target = new URL(link, `http://catalog.test${page}`).pathname;
      const asset = await catalog.app.inject({ url: target });
      expect(asset.statusCode, target).toBe(200);
    }
  });

  it("configures Swagger UI as FastAPI does and fetches the document relative to the page", async () => {
    const res = await catalog.get("/docs/static/swagger-initializer.js");
    expect(res.status).toBe(200);
    expect(res.text).toContain('"BaseLayout"');
    expect(res.text).toContain("resolveUrl('./json')");
    expect(res.text).not.toMatch(/https?:\/\/(?!stackoverflow)/);
  });
});
