/** `npm run start:graphql`: the GraphQL service alone. */
import { ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readGraphqlConfig } from "./config.js";
import { startGraphql } from "./server.js";

try {
  const config = readGraphqlConfig(loadEnv());
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "graphql" });
  const service = await startGraphql(config, logger);
  handleShutdown(logger, [() => service.close()]);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
