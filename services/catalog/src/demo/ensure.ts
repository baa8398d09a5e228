/**
 * A demo catalog where the configured one is missing, so the service has data on first start:
 * on SQLite when the file does not exist, on PostgreSQL when the schema has none of the catalog
 * tables. An existing catalog, even an empty one, is never touched.
 */
import { existsSync } from "node:fs";
import { openDatabase } from "@platform/core";
import { readCatalogConfig } from "../config.js";
import { type CatalogTarget, parseCatalogUrl } from "../db/url.js";
import { generateCatalog } from "./generate.js";
import { loadDemoCatalog } from "./postgres.js";
import { DEMO_SIZE, type GenerateCounts, type GenerateOptions } from "./rows.js";

export interface EnsureDemoOptions extends Partial<GenerateOptions> {
  /** PostgreSQL only: the schema to look in and fill; by default the connection's current schema. */
  schema?: string;
  /** Resolves a relative SQLite URL; default the process's working directory. */
  cwd?: string;
}

export interface EnsureDemoResult {
  /** True when this call generated the demo catalog. */
  created: boolean;
  target: CatalogTarget;
  /** What was generated, when `created`. */
  counts?: GenerateCounts;
}

/**
 * Generates the demo catalog (DEMO_SIZE unless sizes are given) at `catalog` when none is there.
 * `catalog` is the service's database: a parsed target, a URL (`sqlite:///path`,
 * `postgresql://...`), or undefined for the service's default. Safe to call from several
 * processes at once on PostgreSQL: one generates, the others wait for it and find the catalog.
 */
export async function ensureDemoCatalog(
  catalog: CatalogTarget | string | undefined,
  options: EnsureDemoOptions = {},
): Promise<EnsureDemoResult> {
  const cwd = options.cwd ?? process.cwd();
  const target =
    typeof catalog === "object" ? catalog : catalog === undefined ? readCatalogConfig({}, cwd).database : parseCatalogUrl(catalog, cwd);
  const { schema, cwd: _cwd, ...sizes } = options;
  const generate: GenerateOptions = { ...DEMO_SIZE, ...sizes };
  const say = options.onProgress ?? (() => {});

  if (target.kind === "sqlite") {
    if (existsSync(target.path)) return { created: false, target };
    say(`no catalog database at ${target.path}; generating a demo catalog`);
    return { created: true, target, counts: generateCatalog(target.path, generate) };
  }
  const db = await openDatabase({ url: target.url, maxConnections: 1 });
  try {
    const counts = await loadDemoCatalog(db, { ...generate, ...(schema === undefined ? {} : { schema }) }, "skip");
    return counts ? { created: true, target, counts } : { created: false, target };
  } finally {
    await db.close();
  }
}
