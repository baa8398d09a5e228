/** Starts the GraphQL service from its configuration; used by main.ts and the all-services start script. */

import { type Database, type Logger, openDatabase, sql } from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { GraphqlConfig } from "./config.js";
import { resolveSession, resolveSessionWithExpiry } from "./engine/auth/session.js";
import { ScheduledWorker } from "./engine/eventing/scheduled-worker.js";
import { EventWorker } from "./engine/eventing/worker.js";
import { AsyncActionWorker } from "./engine/executors/async-actions.js";
import { RequestGuard } from "./engine/limits/guard.js";
import { redisRateCounter } from "./engine/limits/rate-counter.js";
import { loadMetadataDir } from "./engine/metadata/load-dir.js";
import { applyHasuraMigrations } from "./engine/metadata/migrations.js";
import { buildHttpApp } from "./http/app.js";
import { registerWebSockets } from "./http/websocket/server.js";
import { GraphqlRuntime } from "./runtime.js";

export interface GraphqlOptions {
  /**
   * An already open database (the all-in-one start shares one with the auth service): used
   * instead of the configured one, and left open by close().
   */
  db?: Database | undefined;
  /** Prefilled as `x-hasura-admin-secret` in the console's headers editor (the local all-in-one start only). */
  consoleAdminSecret?: string | undefined;
}

export interface RunningGraphql {
  url: string;
  app: FastifyInstance;
  runtime: GraphqlRuntime;
  close(): Promise<void>;
}

/**
 * Logged at start-up without an admin secret: then every request is admin, or any role it
 * names (https://hasura.io/docs/latest/deployment/securing-graphql-endpoint/).
 */
/** The `application_name` of the engine's connections to PostgreSQL. */
export const ENGINE_APPLICATION_NAME = "hasura-graphql-engine";

export const NO_ADMIN_SECRET_WARNING =
  "the GraphQL engine is running without an admin secret: every request is treated as admin and may name any role; set HASURA_GRAPHQL_ADMIN_SECRET to secure the endpoint";

/** The engine's database as its configuration names it (npm start opens it once for the engine and the MetaGame backend). */
export async function openConfiguredDatabase(config: GraphqlConfig, logger: Logger): Promise<Database> {
  if (!config.databaseUrl) logger.info({ dataDir: config.dataDir }, "no HASURA_GRAPHQL_DATABASE_URL: using embedded PGlite");
  if (!config.databaseUrl && config.listenDatabaseUrl)
    logger.warn(
      "HASURA_GRAPHQL_LISTEN_DATABASE_URL is ignored without HASURA_GRAPHQL_DATABASE_URL: the embedded PGlite listens in process",
    );
  return openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    maxConnections: config.poolSize,
    connectionLifetimeSeconds: config.connectionLifetime,
    listenUrl: config.listenDatabaseUrl,
    // What pg_stat_activity shows for the engine's connections (the URL's `application_name` wins).
    applicationName: ENGINE_APPLICATION_NAME,
  });
}

export async function createGraphql(
  config: GraphqlConfig,
  logger: Logger,
  options: GraphqlOptions = {},
): Promise<{ app: FastifyInstance; runtime: GraphqlRuntime; close(): Promise<void> }> {
  if (config.auth.adminSecretHash === null) logger.warn(NO_ADMIN_SECRET_WARNING);
  const db = options.db ?? (await openConfiguredDatabase(config, logger));
  // Rate limits count in Redis when one is configured, so every instance shares the counts.
  const redis = config.rateLimitRedisUrl ? await redisRateCounter(config.rateLimitRedisUrl, logger) : undefined;
  const closeDb = async () => {
    redis?.close();
    // A database handed in belongs to the caller, which closes it.
    if (!options.db) await db.close();
  };
  const runtime = new GraphqlRuntime(
    db,
    {
      booleanNullCollapse: config.booleanNullCollapse,
      stringifyNumeric: config.stringifyNumeric,
      devMode: config.devMode,
      adminInternalErrors: config.adminInternalErrors,
      logger,
      env: config.environment,
      remoteSchemaPermissions: config.remoteSchemaPermissions,
      changeSignal: config.liveQueryChangeSignal,
      subscriptions: {
        refetchMs: config.liveQueryRefetchMs,
        batchSize: config.liveQueryBatchSize,
        signalGapMs: config.liveQuerySignalGapMs,
        streamRefetchMs: config.streamRefetchMs,
        streamBatchSize: config.streamBatchSize,
        timeLimitMs: (config.timeLimit ?? 60) * 1000,
      },
      bounds: {
        rootFieldsPerStatement: config.statementRootFields,
        subqueriesPerStatement: config.statementSubqueries,
        rootFieldsPerOperation: config.operationRootFields,
        subqueriesPerOperation: config.operationSubqueries,
        responseBytes: config.responseSizeLimit,
      },
    },
    logger,
    { extensionsSchema: config.extensionsSchema },
    new RequestGuard({
      timeLimitSeconds: config.timeLimit,
      rateCounter: redis?.counter,
      responseBytes: config.responseSizeLimit,
      defaults: {
        depth: config.defaultDepthLimit,
        nodes: config.defaultNodeLimit,
        batch: config.defaultBatchLimit,
        cost: config.costLimit,
        patternLength: config.patternLengthLimit,
      },
    }),
  );
  const workerOptions = {
    httpPoolSize: config.eventsHttpPoolSize,
    fetchIntervalMs: config.eventsFetchIntervalMs,
    fetchBatchSize: config.eventsFetchBatchSize,
    leaseMs: config.eventsLeaseSeconds * 1000,
    env: config.environment,
  };
  const events = new EventWorker(db, workerOptions, logger);
  const scheduled = new ScheduledWorker(db, workerOptions, logger);
  runtime.attachEvents(events, scheduled);
  try {
    await runtime.init();
    if (config.migrationsDir) {
      const applied = await applyHasuraMigrations(db, config.migrationsDir);
      if (applied.length > 0) logger.info({ applied }, "migrations applied");
    }
    if (config.metadataDir) await runtime.applyMetadata(await loadMetadataDir(config.metadataDir));
  } catch (error) {
    await closeDb();
    throw error;
  }
  runtime.startPolling(config.metadataPollMs);
  const worker = new AsyncActionWorker(db, () => runtime.currentModel(), {
    intervalMs: config.asyncActionsFetchIntervalMs,
    batchSize: config.asyncActionsFetchBatchSize,
    env: config.environment,
    logger,
  });
  worker.start();
  events.start();
  scheduled.start();
  const app = buildHttpApp(
    {
      resolveSession: (headers, body) => resolveSession({ headers, body }, config.auth),
      execute: (request, session, context) => runtime.execute(request, session, context),
      batchError: (session, size) => runtime.batchError(session, size),
      admin: (endpoint, body, session) => runtime.admin(endpoint, body, session),
      health: async () => {
        await db.query(sql`SELECT 1`);
        return "OK";
      },
    },
    {
      logger,
      cors: { disabled: config.disableCors, domains: config.corsDomains ?? ["*"] },
      enableConsole: config.enableConsole,
      consoleAdminSecret: options.consoleAdminSecret,
    },
  );
  const sockets = registerWebSockets(
    app,
    {
      resolveSession: (headers) => resolveSessionWithExpiry({ headers }, config.auth),
      start: (request, session, context, subscriber) => runtime.start(request, session, context, subscriber),
    },
    {
      keepAliveMs: config.websocketKeepAlive * 1000,
      initTimeoutMs: config.websocketInitTimeout * 1000,
      maxOperations: config.websocketMaxOperations,
      maxBufferedBytes: config.websocketMaxBuffered,
      logger,
    },
  );
  runtime.onMetadataChange(() => sockets.restartAll("metadata changed"));
  return {
    app,
    runtime,
    async close() {
      await runtime.close();
      // Before the server closes: a delivery in flight may make its handler call this engine back,
      // and a connection kept alive after the server began closing holds the close until the
      // client lets it go (Fastify's keep-alive of 72 s).
      await Promise.all([worker.stop(), events.stop(), scheduled.stop()]);
      await app.close();
      await closeDb();
    },
  };
}

export async function startGraphql(config: GraphqlConfig, logger: Logger, options: GraphqlOptions = {}): Promise<RunningGraphql> {
  const service = await createGraphql(config, logger, options);
  const url = await service.app.listen({ host: config.host, port: config.port });
  return { url, ...service };
}
