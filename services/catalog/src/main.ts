/** `npm run start:catalog`: the catalog service alone. */
import { ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readCatalogConfig } from "./config.js";
import { startCatalog } from "./server.js";

try {
  const config = readCatalogConfig(loadEnv());
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "catalog" });
  const service = await startCatalog(config, logger);
  handleShutdown(logger, [() => service.close()]);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
