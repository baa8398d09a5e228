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
      refreshIntervalMs: 2000,
      maxConnections: 10,
      sqliteCacheMb: 64,
    });
  });

  it("takes ENDPOINT_CATALOG_DB, then CATALOG_DB; an empty value falls through", () => {
    const both = { ENDPOINT_CATALOG_DB: " sqlite:///a.db ", CATALOG_DB: "sqlite:///b.db" };
    expect(readCatalogConfig(both, "/srv").database).toEqual({ kind: "sqlite", path: "/srv/a.db" });
    expect(readCatalogConfig({ ...both, ENDPOINT_CATALOG_DB: "  " }, "/srv").database).toEqual({ kind: "sqlite", path: "/srv/b.db" });
  });

  it("reports every problem in one error", () => {
    let caught: unknown;
    try {
      readCatalogConfig({ ENDPOINT_CATALOG_DB: "mysql://x", CATALOG_PORT: "http", LOG_LEVEL: "loud", CATALOG_REFRESH_INTERVAL_MS: "5" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join("\n");
    for (const name of ["ENDPOINT_CATALOG_DB", "CATALOG_PORT", "LOG_LEVEL", "CATALOG_REFRESH_INTERVAL_MS"])
      expect(problems).toContain(name);
  });
});
