/** Starts the GraphQL service from its configuration; used by main.ts and the all-services start script. */
import { type Logger, openDatabase, sql } from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { GraphqlConfig } from "./config.js";
import { resolveSession } from "./engine/auth/session.js";
import { loadMetadataDir } from "./engine/metadata/load-dir.js";
import { applyHasuraMigrations } from "./engine/metadata/migrations.js";
import { buildHttpApp } from "./http/app.js";
import { GraphqlRuntime } from "./runtime.js";

export interface RunningGraphql {
  url: string;
  app: FastifyInstance;
  runtime: GraphqlRuntime;
  close(): Promise<void>;
}

export async function createGraphql(
  config: GraphqlConfig,
  logger: Logger,
): Promise<{ app: FastifyInstance; runtime: GraphqlRuntime; close(): Promise<void> }> {
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    maxConnections: config.poolSize,
  });
  if (!config.databaseUrl) logger.info({ dataDir: config.dataDir }, "no HASURA_GRAPHQL_DATABASE_URL: using embedded PGlite");
  const runtime = new GraphqlRuntime(
    db,
    { booleanNullCollapse: config.booleanNullCollapse, stringifyNumeric: config.stringifyNumeric },
    logger,
  );
  try {
    await runtime.init();
    if (config.migrationsDir) {
      const applied = await applyHasuraMigrations(db, config.migrationsDir);
      if (applied.length > 0) logger.info({ applied }, "migrations applied");
    }
    if (config.metadataDir) await runtime.applyMetadata(await loadMetadataDir(config.metadataDir));
  } catch (error) {
    await db.close();
    throw error;
  }
  runtime.startPolling(config.metadataPollMs);
  const app = buildHttpApp(
    {
      resolveSession: (headers, body) => resolveSession({ headers, body }, config.auth),
      execute: (request, session) => runtime.execute(request, session),
      admin: (endpoint, body) => runtime.admin(endpoint, body),
      health: async () => {
        await db.query(sql`SELECT 1`);
        return "OK";
      },
    },
    { logger, cors: { disabled: config.disableCors, domains: config.corsDomains ?? ["*"] }, enableConsole: config.enableConsole },
  );
  return {
    app,
    runtime,
    async close() {
      runtime.stopPolling();
      await app.close();
      await db.close();
    },
  };
}

export async function startGraphql(config: GraphqlConfig, logger: Logger): Promise<RunningGraphql> {
  const service = await createGraphql(config, logger);
  const url = await service.app.listen({ host: config.host, port: config.port });
  return { url, ...service };
}
