/** Starts the catalog service from its configuration; used by main.ts and by the all-services start script. */
import type { Logger } from "@platform/core";
import { buildApp } from "./app.js";
import type { CatalogConfig } from "./config.js";
import { openCatalogSource } from "./db/open.js";
import { watchAvailability } from "./db/unavailable.js";

export interface RunningService {
  url: string;
  close(): Promise<void>;
}

export async function startCatalog(config: CatalogConfig, logger: Logger): Promise<RunningService> {
  const source = watchAvailability(await openCatalogSource(config.database, config), logger);
  const where = config.database.kind === "sqlite" ? config.database.path : "PostgreSQL";
  logger.info({ database: where }, "catalog database");
  const app = await buildApp({ source, logger, refreshIntervalMs: config.refreshIntervalMs, corsOrigins: config.corsOrigins });
  const url = await app.listen({ host: config.host, port: config.port });
  return {
    url,
    async close() {
      await app.close();
      await source.close();
    },
  };
}
