/** Starts the gateway from its configuration; used by main.ts and the all-services start script. */
import type { Logger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { GatewayConfig } from "./config.js";
import { buildGatewayApp } from "./http/app.js";

export interface RunningGateway {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export function createGateway(config: GatewayConfig, logger: Logger): FastifyInstance {
  if (!config.anonKey && !config.serviceRoleKey) {
    logger.warn(
      "no API keys configured (GATEWAY_ANON_KEY, GATEWAY_SERVICE_ROLE_KEY): /auth/v1 and /graphql/v1 accept requests without one",
    );
  }
  return buildGatewayApp({
    upstreams: { auth: config.authUrl, graphql: config.graphqlUrl, catalog: config.catalogUrl },
    keys: config,
    corsOrigins: config.corsOrigins,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    logger,
  });
}

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const app = createGateway(config, logger);
  const url = await app.listen({ host: config.host, port: config.port });
  return { url, app, close: () => app.close() };
}
