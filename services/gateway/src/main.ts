/** `npm run start:gateway`: the gateway alone, in front of services started elsewhere. */
import { ConfigError, createLogger, handleShutdown, loadEnv } from "@platform/core";
import { readGatewayConfig } from "./config.js";
import { startGateway } from "./server.js";

try {
  const config = readGatewayConfig(loadEnv());
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: "gateway" });
  const gateway = await startGateway(config, logger);
  handleShutdown(logger, [() => gateway.close()]);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
