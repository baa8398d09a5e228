/**
 * Framework-level behaviour: 404 for unknown paths, 405 for non-GET methods, 307 for a trailing
 * slash, FastAPI-shaped 422 bodies, JSON error bodies everywhere.
 */
import { describe, expect, it } from "vitest";
import { backends, type Method, useCatalog } from "./support/fixture.js";

const knownPaths = [
  "/healthz",
  "/products",
  "/products/count",
  "/products/common/count",
  "/products/prod-1",
  "/products/prod-1/sources",
  "/products/prod-1/snapshots",
  "/products/prod-1/dynamics",
  "/categories",
  "/categories/1",
  "/settlements",
  "/settlements/1",
  "/sync/cursors",
];

const dynamicsQuery =
  "parser_name=fixprice&source_id=fp-1&field=price&interval=1d&date_from=2026-02-01T00:00:00Z&date_to=2026-02-02T00:00:00Z";

describe.each(backends)("HTTP errors [%s]", (backend) => {
  const catalog = useCatalog(backend);

  describe("404 Not Found", () => {
    it.each(["/", "/nope", "/products/prod-1/unknown", "/products/prod-1/sources/extra", "/categories/1/extra", "/sync", "/nope/"])(
      "GET %s",
      async (path) => {
        const res = await catalog.get(path);
        expect(res.status).toBe(404);
        expect(res.headers["content-type"]).toMatch(/^application\/json/);
        expect(res.body).toEqual({ detail: "Not Found" });
      },
    );
  });

  describe("405 Method Not Allowed on every known path", () => {
    const methods: Method[] = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"];
    it.each(knownPaths)("%s", async (path) => {
      for (const method of methods) {
        const res = await catalog.call(method, path);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.allow, `${method} ${path}`).toBe("GET");
        expect(res.headers["content-type"], `${method} ${path}`).toMatch(/^application\/json/);
        expect(res.body, `${method} ${path}`).toEqual({ detail: "Method Not Allowed" });
      }
      const head = await catalog.call("HEAD", path);
      expect(head.status, `HEAD ${path}`).toBe(405);
      expect(head.headers.allow, `HEAD ${path}`).toBe("GET");
    });
  });

  describe("307 on a trailing slash", () => {
    it.each([
      ["/products/", "/products"],
      ["/products/?limit=1&sort=price_asc", "/products?limit=1&sort=price_asc"],
      ["/healthz/", "/healthz"],
      ["/products/count/", "/products/count"],
      ["/products/common/count/?scope=stores", "/products/common/count?scope=stores"],
      ["/products/prod-1/", "/products/prod-1"],
      ["/products/prod-1/sources/", "/products/prod-1/sources"],
      ["/categories/", "/categories"],
      ["/categories/1/", "/categories/1"],
      ["/settlements/1/", "/settlements/1"],
      ["/sync/cursors/", "/sync/cursors"],
    ])("GET %s -> %s", async (path, target) => {
      const res = await catalog.get(path);
      expect(res.status).toBe(307);
      const location = new URL(String(res.headers.location), "http://localhost");
      expect(location.pathname + location.search).toBe(target);
    });
  });

  describe("422 bodies in FastAPI's shape", () => {
    it.each([
      ["/products?limit=0", "limit", "greater_than_equal", "0", /greater than or equal to 1/],
      ["/products?limit=101", "limit", "less_than_equal", "101", /less than or equal to 100/],
      ["/products?limit=abc", "limit", "int_parsing", "abc", /valid integer/],
      ["/products?offset=-5", "offset", "greater_than_equal", "-5", /greater than or equal to 0/],
      ["/products?promo=maybe", "promo", "bool_parsing", "maybe", /valid boolean/],
      ["/products?price_max=lots", "price_max", "float_parsing", "lots", /valid number/],
      ["/products?category_id=milk", "category_id", "int_parsing", "milk", /valid integer/],
      ["/categories?depth=x", "depth", "int_parsing", "x", /valid integer/],
      ["/products/prod-1/snapshots?limit=1000", "limit", "less_than_equal", "1000", /less than or equal to 100/],
    ])("%s", async (path, name, type, input, msg) => {
      const res = await catalog.get(path);
      expect(res.status).toBe(422);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.body.detail).toHaveLength(1);
      const [error] = res.body.detail;
      expect(error).toMatchObject({ type, loc: ["query", name], input });
      expect(error.msg).toMatch(msg);
    });

    it("path parameters use loc ['path', name]", async () => {
      const res = await catalog.get("/settlements/first");
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "int_parsing", loc: ["path", "settlement_id"], input: "first" })]);
      expect(res.body.detail[0].msg).toMatch(/valid integer/);
    });

    it("a missing required parameter: type missing, msg 'Field required', input null", async () => {
      const query = dynamicsQuery.replace("&field=price", "");
      const res = await catalog.get(`/products/prod-1/dynamics?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "missing", loc: ["query", "field"], input: null })]);
      expect(res.body.detail[0].msg).toBe("Field required");
    });

    it("an empty required string: type string_too_short", async () => {
      const query = dynamicsQuery.replace("source_id=fp-1", "source_id=");
      const res = await catalog.get(`/products/prod-1/dynamics?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "string_too_short", loc: ["query", "source_id"], input: "" })]);
      expect(res.body.detail[0].msg).toMatch(/at least 1 character/);
    });

    it("reports every invalid parameter at once", async () => {
      const res = await catalog.get("/products?limit=0&offset=-1&hit=perhaps");
      expect(res.status).toBe(422);
      const found = res.body.detail.map((e: { loc: string[]; type: string }) => `${e.loc.join(".")}:${e.type}`).sort();
      expect(found).toEqual(["query.hit:bool_parsing", "query.limit:greater_than_equal", "query.offset:greater_than_equal"]);
    });
  });

  it("every error body is JSON with a detail", async () => {
    const cases: [string, number][] = [
      ["/nope", 404],
      ["/products/nope", 404],
      ["/products?sort=x", 400],
      ["/products?limit=0", 422],
      ["/products/prod-1/dynamics", 422],
      [`/products/prod-1/dynamics?${dynamicsQuery.replace("2026-02-01T00:00:00Z", "2026-02-01")}`, 422],
      [`/products/prod-1/dynamics?${dynamicsQuery.replace("field=price", "field=x")}`, 400],
      [`/products/nope/dynamics?${dynamicsQuery}`, 404],
      ["/products/common/count", 400],
      ["/categories/5", 404],
      ["/settlements/x", 422],
    ];
    for (const [path, status] of cases) {
      const res = await catalog.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers["content-type"], path).toMatch(/^application\/json/);
      expect(res.body, path).toHaveProperty("detail");
      expect(res.text, path).not.toMatch(/at .*\.(ts|js):\d+/);
    }
  });
});
