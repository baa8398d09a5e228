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
}

export async function buildApp(deps: CatalogAppDeps): Promise<FastifyInstance> {
  const logger = deps.logger ?? createLogger({ level: "silent" });
  const catalog = new Catalog(deps.source, logger);
  await catalog.start(deps.refreshIntervalMs ?? 2000);
  const app = await buildHttpApp(catalog, logger);
  app.addHook("onClose", async () => catalog.stop());
  return app;
}
