/**
 * The catalog for `npm start`: a demo catalog where the configured one is missing (a SQLite file
 * that does not exist, or a PostgreSQL database without the catalog tables), then the service.
 */
import { type CatalogConfig, DEMO_SIZE, ensureDemoCatalog, startCatalog } from "@platform/catalog";
import type { Logger } from "@platform/core";

export async function startCatalogWithDemo(config: CatalogConfig, logger: Logger) {
  const where = config.database.kind === "sqlite" ? config.database.path : "PostgreSQL";
  const demo = await ensureDemoCatalog(config.database, {
    onProgress: (message) => logger.debug({ database: where }, message),
  });
  if (demo.created && demo.counts) {
    logger.info(
      { database: where, ...DEMO_SIZE, seconds: Math.round(demo.counts.seconds * 100) / 100 },
      "no catalog yet: generated the demo catalog",
    );
  }
  return startCatalog(config, logger);
}
