/** `npm run start:auth`: the auth service alone, strict about its configuration. */
import { ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readAuthConfig } from "./config.js";
import { startAuth } from "./server.js";

try {
  const config = readAuthConfig(loadEnv());
  const logger = createLogger({ level: config.log.level, format: config.log.format, name: "auth", file: config.log.file });
  const service = await startAuth(config, logger);
  handleShutdown(logger, [() => service.close()]);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
