/** The catalog's configuration, read once at start-up: the original service's settings plus CATALOG_HOST/PORT and CORS. */
import { custom, type Env, integer, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";
import { DEFAULT_SQLITE_CACHE_MB } from "./db/source.js";
import { parseCatalogUrl } from "./db/url.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * CATALOG_CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`), `*` for any (the
 * default when unset); set but empty, or `none`, turns CORS off (`[]`).
 */
export function corsOrigins(raw: string | undefined, set: boolean): string[] {
  if (raw === undefined) return set ? [] : ["*"];
  if (raw.toLowerCase() === "none") return [];
  const list = [...new Set(raw.split(",").map((o) => o.trim()))].filter((o) => o !== "");
  const bad = list.filter((o) => o !== "*" && (!URL.canParse(o) || new URL(o).origin !== o));
  if (bad.length > 0) throw new Error(`not an origin (scheme://host[:port]) or *: ${bad.map((o) => `"${o}"`).join(", ")}`);
  return list.includes("*") ? ["*"] : list;
}

export function readCatalogConfig(env: Env, cwd = process.cwd()) {
  return readConfig(env, {
    database: custom(["ENDPOINT_CATALOG_DB", "CATALOG_DB"], (raw) => parseCatalogUrl(raw ?? "sqlite:///./catalog.db", cwd)),
    host: string("CATALOG_HOST", "0.0.0.0"),
    port: integer("CATALOG_PORT", 5634, { min: 0, max: 65535 }),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "auto"),
    refreshIntervalMs: integer("CATALOG_REFRESH_INTERVAL_MS", 2000, { min: 100 }),
    maxConnections: integer("CATALOG_DB_MAX_CONNECTIONS", 10, { min: 1 }),
    sqliteCacheMb: integer("CATALOG_SQLITE_CACHE_MB", DEFAULT_SQLITE_CACHE_MB, { min: 1, max: 65_536 }),
    // readConfig treats an empty value as unset; here empty means "off", so presence is checked apart.
    corsOrigins: custom("CATALOG_CORS_ORIGINS", (raw) => corsOrigins(raw, env.CATALOG_CORS_ORIGINS !== undefined)),
  });
}

export type CatalogConfig = ReturnType<typeof readCatalogConfig>;
