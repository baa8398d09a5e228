import { ConfigError } from "@platform/core";
import { describe, expect, it } from "vitest";
import { readCatalogConfig } from "../src/config.js";
import { parseCatalogUrl } from "../src/db/url.js";

describe("catalog database URLs (SQLAlchemy forms)", () => {
  it.each([
    ["sqlite:///catalog.db", "/srv/catalog.db"],
    ["sqlite:///./data/catalog.db", "/srv/data/catalog.db"],
    ["sqlite:////var/lib/catalog.db", "/var/lib/catalog.db"],
    ["sqlite+pysqlite:///catalog.db?mode=ro", "/srv/catalog.db"],
  ])("%s is the SQLite file %s", (url, path) => {
    expect(parseCatalogUrl(url, "/srv")).toEqual({ kind: "sqlite", path });
  });

  it.each([
    ["postgresql://u:p@db:5432/catalog", "postgresql://u:p@db:5432/catalog"],
    ["postgresql+psycopg://u@db/catalog", "postgresql://u@db/catalog"],
    ["postgresql+psycopg2://u@db/catalog?sslmode=require", "postgresql://u@db/catalog?sslmode=require"],
    ["postgres://u@db/catalog", "postgresql://u@db/catalog"],
  ])("%s is PostgreSQL at %s", (url, normalised) => {
    expect(parseCatalogUrl(url)).toEqual({ kind: "postgres", url: normalised });
  });

  it.each(["sqlite://", "sqlite:///:memory:", "mysql://root@db/catalog", "catalog.db", "sqlite://host/catalog.db"])("refuses %s", (url) => {
    expect(() => parseCatalogUrl(url)).toThrow(Error);
  });
});

describe("catalog configuration", () => {
  it("has the documented defaults", () => {
    expect(readCatalogConfig({}, "/srv")).toEqual({
      database: { kind: "sqlite", path: "/srv/catalog.db" },
      host: "0.0.0.0",
      port: 5634,
      logLevel: "info",
      logFormat: "auto",
      refreshIntervalMs: 2000,
      maxConnections: 10,
      sqliteCacheMb: 64,
      corsOrigins: ["*"],
    });
  });

  it.each([
    [undefined, ["*"]],
    ["*", ["*"]],
    ["", []],
    ["  ", []],
    ["none", []],
    ["NONE", []],
    ["https://shop.example", ["https://shop.example"]],
    [" https://a.example , http://localhost:5173,https://a.example ", ["https://a.example", "http://localhost:5173"]],
    ["https://a.example,*", ["*"]],
  ])("CATALOG_CORS_ORIGINS=%j allows %j (empty list: CORS off)", (value, origins) => {
    const env = value === undefined ? {} : { CATALOG_CORS_ORIGINS: value };
    expect(readCatalogConfig(env, "/srv").corsOrigins).toEqual(origins);
  });

  it.each(["https://a.example/", "a.example", "https://a.example/path", "ftp//x"])("CATALOG_CORS_ORIGINS=%j is refused", (value) => {
    expect(() => readCatalogConfig({ CATALOG_CORS_ORIGINS: value })).toThrow(/CATALOG_CORS_ORIGINS/);
  });

  it("takes ENDPOINT_CATALOG_DB, then CATALOG_DB; an empty value falls through", () => {
    const both = { ENDPOINT_CATALOG_DB: " sqlite:///a.db ", CATALOG_DB: "sqlite:///b.db" };
    expect(readCatalogConfig(both, "/srv").database).toEqual({ kind: "sqlite", path: "/srv/a.db" });
    expect(readCatalogConfig({ ...both, ENDPOINT_CATALOG_DB: "  " }, "/srv").database).toEqual({ kind: "sqlite", path: "/srv/b.db" });
  });

  it("reports every problem in one error", () => {
    let caught: unknown;
    try {
      readCatalogConfig({
        ENDPOINT_CATALOG_DB: "mysql://x",
        CATALOG_PORT: "http",
        LOG_LEVEL: "loud",
        CATALOG_REFRESH_INTERVAL_MS: "5",
        CATALOG_CORS_ORIGINS: "shop.example",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join("\n");
    for (const name of ["ENDPOINT_CATALOG_DB", "CATALOG_PORT", "LOG_LEVEL", "CATALOG_REFRESH_INTERVAL_MS", "CATALOG_CORS_ORIGINS"])
      expect(problems).toContain(name);
  });
});
