/** `npm run start:backend -w projects/metagame`: the MetaGame backend alone. */
import { ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readBackendConfig } from "./config.js";
import { startBackend } from "./server.js";

try {
  const config = readBackendConfig(loadEnv());
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "metagame-backend" });
  const service = await startBackend(config, logger);
  handleShutdown(logger, [() => service.close()]);
  await service.ready();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
