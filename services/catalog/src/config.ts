/** The catalog's configuration, read once at start-up (reference 2; issue: CATALOG_HOST/PORT). */
import { custom, type Env, integer, oneOf, readConfig, string } from "@platform/core";
import { DEFAULT_SQLITE_CACHE_MB } from "./db/source.js";
import { parseCatalogUrl } from "./db/url.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function readCatalogConfig(env: Env, cwd = process.cwd()) {
  return readConfig(env, {
    database: custom(["ENDPOINT_CATALOG_DB", "CATALOG_DB"], (raw) => parseCatalogUrl(raw ?? "sqlite:///./catalog.db", cwd)),
    host: string("CATALOG_HOST", "0.0.0.0"),
    port: integer("CATALOG_PORT", 5634, { min: 0, max: 65535 }),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    refreshIntervalMs: integer("CATALOG_REFRESH_INTERVAL_MS", 2000, { min: 100 }),
    maxConnections: integer("CATALOG_DB_MAX_CONNECTIONS", 10, { min: 1 }),
    sqliteCacheMb: integer("CATALOG_SQLITE_CACHE_MB", DEFAULT_SQLITE_CACHE_MB, { min: 1, max: 65_536 }),
  });
}

export type CatalogConfig = ReturnType<typeof readCatalogConfig>;
