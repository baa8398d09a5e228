/**
 * CORS (CATALOG_CORS_ORIGINS): preflights and simple requests from allowed and other origins,
 * the headers scripts may read, and CORS turned off. Only real preflights (Origin and
 * Access-Control-Request-Method) are answered as such; other OPTIONS requests keep the 405.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@platform/core";
import SqliteDatabase from "better-sqlite3";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { readCatalogConfig } from "../src/config.js";
import { catalogDdl } from "../src/db/ddl.js";
import { startCatalog } from "../src/server.js";
import { type FixtureCatalog, fixtureSql, serveSqlite, useCatalog } from "./support/fixture.js";

const SHOP = "https://shop.example";
const DEV = "http://localhost:5173";
const OTHER = "https://elsewhere.example";

/** The original fixture in a temporary SQLite file, served with the given CATALOG_CORS_ORIGINS. */
function withCors(setting: string | undefined) {
  return async (): Promise<FixtureCatalog> => {
    const dir = mkdtempSync(join(tmpdir(), "catalog-cors-"));
    const path = join(dir, "catalog.db");
    const file = new SqliteDatabase(path);
    file.exec(catalogDdl("sqlite"));
    file.exec(fixtureSql("sqlite"));
    file.close();
    const { corsOrigins } = readCatalogConfig(setting === undefined ? {} : { CATALOG_CORS_ORIGINS: setting }, dir);
    return serveSqlite(path, dir, { corsOrigins });
  };
}

const get = (app: FastifyInstance, url: string, origin?: string) => app.inject({ url, headers: origin ? { origin } : {} });
const preflight = (app: FastifyInstance, url: string, origin: string, headers = "x-request-id") =>
  app.inject({
    method: "OPTIONS",
    url,
    headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": headers },
  });
const exposed = (res: LightMyRequestResponse) =>
  String(res.headers["access-control-expose-headers"] ?? "")
    .toLowerCase()
    .split(/,\s*/);

function expectStill405(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(405);
  expect(res.headers.allow).toBe("GET");
  expect(res.json()).toEqual({ detail: "Method Not Allowed" });
}

describe("CORS with the default (any origin)", () => {
  const catalog = useCatalog("sqlite", withCors(undefined));

  it.each(["/products?limit=1", "/products/prod-1/dynamics", "/nope", "/products?limit=0", "/openapi.json"])(
    "a simple GET %s from another origin may be read, error answers included",
    async (url) => {
      const res = await get(catalog.app, url, OTHER);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(exposed(res)).toContain("x-request-id");
      expect(res.headers["x-request-id"]).toBeDefined();
    },
  );

  it.each(["/products", "/products/prod-1/dynamics", "/categories/1", "/healthz"])("answers the preflight of GET %s", async (url) => {
    const res = await preflight(catalog.app, url, OTHER, "x-request-id, content-type");
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-methods"]).toBe("GET, HEAD, OPTIONS");
    expect(res.headers["access-control-allow-headers"]).toBe("x-request-id, content-type");
    expect(res.headers["access-control-max-age"]).toBe("600");
    expect(res.body).toBe("");
  });

  it("keeps 405 for an OPTIONS request that is no preflight", async () => {
    expectStill405(await catalog.app.inject({ method: "OPTIONS", url: "/products" }));
    expectStill405(await catalog.app.inject({ method: "OPTIONS", url: "/products", headers: { origin: OTHER } }));
  });
});

describe("CORS restricted to a list of origins", () => {
  const catalog = useCatalog("sqlite", withCors(`${SHOP}, ${DEV}`));

  it.each([SHOP, DEV])("lets %s read answers and passes its preflight", async (origin) => {
    const res = await get(catalog.app, "/products?limit=1", origin);
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(origin);
    expect(String(res.headers.vary)).toMatch(/origin/i);
    expect(exposed(res)).toContain("x-request-id");
    const pre = await preflight(catalog.app, "/products", origin);
    expect(pre.statusCode).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe(origin);
    expect(pre.headers["access-control-allow-methods"]).toBe("GET, HEAD, OPTIONS");
  });

  it("gives another origin no CORS grant (the browser then withholds the answer)", async () => {
    const res = await get(catalog.app, "/products?limit=1", OTHER);
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(String(res.headers.vary)).toMatch(/origin/i);
    const pre = await preflight(catalog.app, "/products", OTHER);
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("serves clients without an Origin as before", async () => {
    const res = await get(catalog.app, "/products?limit=1");
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe.each(["", "none"])("CORS turned off (CATALOG_CORS_ORIGINS=%j)", (setting) => {
  const catalog = useCatalog("sqlite", withCors(setting));

  it("sends no CORS headers and leaves preflights to the 405", async () => {
    const res = await get(catalog.app, "/products?limit=1", OTHER);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    const pre = await preflight(catalog.app, "/products", OTHER);
    expectStill405(pre);
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("CATALOG_CORS_ORIGINS in the running service", () => {
  it("is applied by startCatalog", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catalog-cors-service-"));
    const path = join(dir, "catalog.db");
    const file = new SqliteDatabase(path);
    file.exec(catalogDdl("sqlite"));
    file.close();
    const config = readCatalogConfig(
      { ENDPOINT_CATALOG_DB: `sqlite:///${path}`, CATALOG_HOST: "127.0.0.1", CATALOG_PORT: "0", CATALOG_CORS_ORIGINS: SHOP },
      dir,
    );
    const service = await startCatalog(config, createLogger({ level: "silent" }));
    try {
      const allowed = await fetch(`${service.url}/healthz`, { headers: { origin: SHOP } });
      expect(allowed.headers.get("access-control-allow-origin")).toBe(SHOP);
      const other = await fetch(`${service.url}/healthz`, { headers: { origin: OTHER } });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
