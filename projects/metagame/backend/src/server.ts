/** Starts the backend from its configuration; used by main.ts, `npm start` and the tests. */
import { type Database, type Logger, openDatabase } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { buildBackendApp } from "./app.js";
import type { BackendConfig } from "./config.js";
import { createEngineClient } from "./engine-client.js";
import { createProfileQueue } from "./queue/index.js";

export interface RunningBackend {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** The engine's database, when the caller has it open (npm start's shared embedded database). */
  db?: Database;
  fetch?: typeof fetch;
}

export async function startBackend(config: BackendConfig, logger: Logger, options: BackendOptions = {}): Promise<RunningBackend> {
  const ownDb = options.db === undefined;
  const db = options.db ?? (await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir }));
  const fetchImpl = options.fetch ?? fetch;
  const profileQueue = await createProfileQueue({ config, logger, db, fetch: fetchImpl });
  try {
    const app = await buildBackendApp({
      config,
      logger,
      engine: createEngineClient(config.graphqlUrl, config.adminSecret, fetchImpl),
      db,
      fetch: fetchImpl,
      profileQueue,
    });
    const url = await app.listen({ host: config.host, port: config.port });
    return {
      url,
      app,
      async close() {
        await app.close();
        await profileQueue.close();
        if (ownDb) await db.close();
      },
    };
  } catch (error) {
    await profileQueue.close();
    if (ownDb) await db.close();
    throw error;
  }
}
