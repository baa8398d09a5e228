/** Composition root: a Catalog over a source, exposed through the HTTP app. */
import { createLogger, type Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { CatalogSource } from "./db/source.js";
import { Catalog } from "./domain/catalog.js";
import { buildHttpApp } from "./http/app.js";

export interface CatalogAppDeps {
  source: CatalogSource;
  logger?: Logger;
  /** How often the database is checked for changes to reload the in-memory summaries. */
  refreshIntervalMs?: number;
  /** CATALOG_CORS_ORIGINS: `["*"]` (the default) for any origin, `[]` for no CORS. */
  corsOrigins?: readonly string[];
}

export async function buildApp(deps: CatalogAppDeps): Promise<FastifyInstance> {
  const logger = deps.logger ?? createLogger({ level: "silent" });
  const catalog = new Catalog(deps.source, logger);
  await catalog.start(deps.refreshIntervalMs ?? 2000);
  const app = await buildHttpApp(catalog, logger, { corsOrigins: deps.corsOrigins ?? ["*"] });
  app.addHook("onClose", async () => catalog.stop());
  return app;
}
